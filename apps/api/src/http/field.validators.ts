import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsObject,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  MaxLength,
  MinLength,
  ValidateBy,
  buildMessage,
} from 'class-validator';

const URL_OPTIONS = {
  require_protocol: true,
  require_tld: false,
  protocols: ['http', 'https', 'ipfs', 'ar'],
};

/** A required short text field. */
export function IsText(max: number, example?: string): PropertyDecorator {
  return applyDecorators(
    ApiProperty({ minLength: 1, maxLength: max, example }),
    IsString(),
    MinLength(1, { message: '$property must not be empty' }),
    MaxLength(max),
  );
}

export function IsOptionalText(max: number): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ maxLength: max }),
    IsOptional(),
    IsString(),
    MaxLength(max),
  );
}

export function IsOptionalUri(): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ format: 'uri', maxLength: 2048 }),
    IsOptional(),
    IsUrl(URL_OPTIONS, { message: '$property must be a URL (http, https, ipfs or ar)' }),
    MaxLength(2048),
  );
}

/** `images`: at least one URL (spec 8). */
export function IsImages(): PropertyDecorator {
  return applyDecorators(
    ApiProperty({
      type: [String],
      minItems: 1,
      maxItems: 20,
      example: ['https://example.com/image.png'],
    }),
    IsArray(),
    ArrayMinSize(1, { message: 'images must contain at least 1 entry' }),
    ArrayMaxSize(20),
    IsUrl(URL_OPTIONS, {
      each: true,
      message: 'each of images must be a URL (http, https, ipfs or ar)',
    }),
  );
}

export function IsAttributes(): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({
      type: 'array',
      maxItems: 100,
      items: { type: 'object', additionalProperties: true },
      example: [{ trait_type: 'Background', value: 'Blue' }],
    }),
    IsOptional(),
    IsArray(),
    ArrayMaxSize(100),
    IsObject({ each: true, message: 'each of attributes must be an object' }),
  );
}

/** An amount: a JSON number or a decimal string; the token's decimals are checked later. */
export function IsAmount(required = true): PropertyDecorator {
  return applyDecorators(
    (required ? ApiProperty : ApiPropertyOptional)({
      oneOf: [{ type: 'number' }, { type: 'string', pattern: '^\\d+(\\.\\d+)?$' }],
      example: '1000.5',
    }),
    ...(required ? [] : [IsOptional()]),
    ValidateBy({
      name: 'isAmount',
      validator: {
        validate: isAmountValue,
        defaultMessage: buildMessage(
          (each) => `${each}$property must be a positive number or decimal string`,
        ),
      },
    }),
  );
}

/** What `@IsAmount()` takes: a positive finite number, or a decimal string. */
export function isAmountValue(value: unknown): boolean {
  return (
    (typeof value === 'number' && Number.isFinite(value) && value > 0) ||
    (typeof value === 'string' && /^\d+(\.\d+)?$/.test(value.trim()))
  );
}

/** `seller_fee`: basis points 0..10000, as a number or a numeric string (spec 2.5). */
export function IsSellerFee(): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({
      oneOf: [{ type: 'integer' }, { type: 'string' }],
      minimum: 0,
      maximum: 10000,
    }),
    IsOptional(),
    Transform(({ value }: { value: unknown }) =>
      typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : value,
    ),
    ValidateBy({
      name: 'isSellerFee',
      validator: {
        validate: (value: unknown) =>
          typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 10_000,
        defaultMessage: () => 'seller_fee must be an integer of basis points from 0 to 10000',
      },
    }),
  );
}

/** A token id: a non-negative integer as a number or a decimal string; normalized to a string. */
export function IsTokenId(required: boolean): PropertyDecorator {
  return applyDecorators(
    (required ? ApiProperty : ApiPropertyOptional)({
      oneOf: [
        { type: 'string', maxLength: 88 },
        { type: 'integer', minimum: 0 },
      ],
    }),
    ...(required ? [] : [IsOptional()]),
    Transform(({ value }: { value: unknown }) =>
      typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : value,
    ),
    IsString({ message: '$property must be a token id (integer or string)' }),
    MaxLength(88),
  );
}

const ADDRESS = /^[0-9A-Za-z]{32,44}$|^0x[0-9a-fA-F]{40}$/;

/** What `@IsAddressField()` takes when present: a string of an address's shape. */
export function isAddressText(value: unknown): boolean {
  return typeof value === 'string' && ADDRESS.test(value);
}

/** An address; its format is checked against the network by the use case. */
export function IsAddressField(required: boolean): PropertyDecorator {
  return applyDecorators(
    (required ? ApiProperty : ApiPropertyOptional)({
      description: 'A Solana (base58) or EVM (0x-hex) address',
      pattern: ADDRESS.source,
      example: '0x52908400098527886E0F7030069857D2E4169EE7',
    }),
    ...(required ? [] : [IsOptional()]),
    IsString(),
    Matches(ADDRESS, {
      message: '$property must be a Solana (base58) or EVM (0x-hex) address',
    }),
  );
}
