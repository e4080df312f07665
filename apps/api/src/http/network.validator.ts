import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { NETWORKS } from '@app/config';

const MESSAGE = `network must be one of: ${NETWORKS.join(', ')}`;

/** A required `network` field: one of the spec's 22 names, exactly. */
export function IsNetwork(): PropertyDecorator {
  return applyDecorators(
    ApiProperty({ enum: NETWORKS, example: 'solana' }),
    IsIn(NETWORKS, { message: MESSAGE }),
  );
}

export function IsOptionalNetwork(): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ enum: NETWORKS }),
    IsOptional(),
    IsIn(NETWORKS, { message: MESSAGE }),
  );
}
