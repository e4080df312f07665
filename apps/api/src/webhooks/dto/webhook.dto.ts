import { ApiPropertyOptional, ApiProperty } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsISO8601,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { ACCOUNT_EVENT_TYPES } from '@app/database';
import { PageLimitQuery } from '../../http/page-limit.query';

const EVENT_TYPES_MESSAGE = `each value in event_types must be one of: ${ACCOUNT_EVENT_TYPES.join(', ')}`;
/** The longest rotation grace: a week. */
export const MAX_GRACE_SECONDS = 7 * 86_400;

export class CreateWebhookDto {
  @ApiProperty({ example: 'https://example.com/webhooks', maxLength: 2000 })
  @IsString()
  @MaxLength(2000)
  url!: string;

  @ApiPropertyOptional({
    enum: ACCOUNT_EVENT_TYPES,
    isArray: true,
    example: ['operation.confirmed', 'operation.failed'],
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(ACCOUNT_EVENT_TYPES.length)
  @IsIn(ACCOUNT_EVENT_TYPES, { each: true, message: EVENT_TYPES_MESSAGE })
  event_types?: string[];

  @ApiPropertyOptional({ example: 'settlements to the backend', maxLength: 200 })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  description?: string;

  @ApiPropertyOptional({ default: true })
  @IsOptional()
  @IsBoolean()
  enabled?: boolean;
}

export class UpdateWebhookDto {
  @ApiPropertyOptional({ example: 'https://example.com/webhooks', maxLength: 2000 })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  url?: string;

  @ApiPropertyOptional({
    enum: ACCOUNT_EVENT_TYPES,
    isArray: true,
    example: ['operation.confirmed'],
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(ACCOUNT_EVENT_TYPES.length)
  @IsIn(ACCOUNT_EVENT_TYPES, { each: true, message: EVENT_TYPES_MESSAGE })
  event_types?: string[];

  @ApiPropertyOptional({ maxLength: 200 })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  description?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsBoolean()
  enabled?: boolean;
}

export class RotateWebhookSecretDto {
  @ApiPropertyOptional({ default: 86_400, minimum: 0, maximum: MAX_GRACE_SECONDS })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(MAX_GRACE_SECONDS)
  grace_period_seconds?: number;
}

/** Exactly one of the three (checked by the controller). */
export class ReplayWebhookDto {
  @ApiPropertyOptional({ description: 'Send this delivery again (its event, or its ping)' })
  @IsOptional()
  @IsUUID('all', { message: 'delivery_id must be a delivery id' })
  delivery_id?: string;

  @ApiPropertyOptional({ description: 'Send every event from this sequence number on' })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(Number.MAX_SAFE_INTEGER)
  from_sequence?: number;

  @ApiPropertyOptional({ description: 'Send every event made at or after this ISO 8601 time' })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'since must be an ISO 8601 time' })
  since?: string;
}

export class WebhookDeliveriesQuery extends PageLimitQuery {
  @ApiPropertyOptional({ enum: ['pending', 'succeeded', 'failed'] })
  @IsOptional()
  @IsIn(['pending', 'succeeded', 'failed'], {
    message: 'status must be one of: pending, succeeded, failed',
  })
  status?: 'pending' | 'succeeded' | 'failed';

  /** A previous page's `next_cursor`. */
  @ApiPropertyOptional({ description: "A previous page's `next_cursor`" })
  @IsOptional()
  @Matches(/^[0-9a-f-]{36}$/i, { message: 'cursor must be a next_cursor of this endpoint' })
  cursor?: string;
}
