import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

/** `?limit=` of a paged list: 1 to `max` (each endpoint picks its default). */
export function pageLimitQueryUpTo(max: number) {
  class PageLimit {
    @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: max })
    @IsOptional()
    @Type(() => Number)
    @IsInt()
    @Min(1)
    @Max(max)
    limit?: number;
  }
  return PageLimit;
}

/** `?limit=` of the paged lists of records: 1 to 100. */
export class PageLimitQuery extends pageLimitQueryUpTo(100) {}
