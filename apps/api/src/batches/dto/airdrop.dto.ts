import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, ValidateNested } from 'class-validator';
import type { Network } from '@app/config';
import {
  AIRDROP_MAX_ENTRIES,
  type NftAirdropInput,
  type NftAirdropItemInput,
  type TokenAirdropInput,
} from '@app/domain';
import { checkInBulk, hasExactly } from '../../http/bulk-entries';
import {
  IsAddressField,
  IsAmount,
  IsAttributes,
  IsImages,
  IsOptionalText,
  IsSellerFee,
  IsText,
  isAddressText,
  isAmountValue,
} from '../../http/field.validators';
import { IsOptionalNetwork } from '../../http/network.validator';

/**
 * 1 to AIRDROP_MAX_ENTRIES entries, each validated as a body of its own (its index named); with
 * `passes`, a body whose every entry passes it is checked in bulk (http/bulk-entries.ts).
 */
function Entries(
  entry: () => new () => object,
  passes?: (entry: unknown) => boolean,
): PropertyDecorator {
  return (target, key) => {
    if (passes) {
      const bounds = { min: 1, max: AIRDROP_MAX_ENTRIES };
      checkInBulk(target.constructor, { field: String(key), ...bounds, passes });
    }
    ApiProperty({ type: entry(), isArray: true, minItems: 1, maxItems: AIRDROP_MAX_ENTRIES })(
      target,
      key,
    );
    IsArray()(target, key);
    ArrayMinSize(1)(target, key);
    ArrayMaxSize(AIRDROP_MAX_ENTRIES)(target, key);
    ValidateNested({ each: true })(target, key);
    Type(entry)(target, key);
  };
}

export class TokenAirdropEntryDto {
  @IsAddressField(true) recipient!: string;
  @IsAmount() amount!: number | string;
}

/** What TokenAirdropEntryDto accepts, as one predicate: its two fields, nothing else. */
export function isTokenAirdropEntry(entry: unknown): boolean {
  return (
    hasExactly(entry, ['recipient', 'amount']) &&
    isAddressText((entry as TokenAirdropEntryDto).recipient) &&
    isAmountValue((entry as TokenAirdropEntryDto).amount)
  );
}

export class TokenAirdropDto implements TokenAirdropInput {
  @IsOptionalNetwork() network?: Network;
  @Entries(() => TokenAirdropEntryDto, isTokenAirdropEntry) recipients!: TokenAirdropEntryDto[];
}

export class NftAirdropItemDto implements NftAirdropItemInput {
  @IsAddressField(true) recipient!: string;
  @IsText(64, 'Item #1') name!: string;
  @IsImages() images!: string[];
  @IsOptionalText(2000) description?: string;
  @IsAttributes() attributes?: Record<string, unknown>[];
  @IsSellerFee() seller_fee?: number;
}

export class NftAirdropDto implements NftAirdropInput {
  @IsOptionalNetwork() network?: Network;
  @Entries(() => NftAirdropItemDto) items!: NftAirdropItemDto[];
}
