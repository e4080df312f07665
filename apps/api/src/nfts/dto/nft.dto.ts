import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsInt, IsOptional, Max, Min } from 'class-validator';
import type { Network } from '@app/config';
import type { MintNftInput } from '@app/domain';
import {
  IsAddressField,
  IsAttributes,
  IsImages,
  IsOptionalText,
  IsOptionalUri,
  IsSellerFee,
  IsText,
  IsTokenId,
} from '../../http/field.validators';
import { IsNetwork, IsOptionalNetwork } from '../../http/network.validator';

const MaxSupply = (): PropertyDecorator => (target, key) => {
  ApiPropertyOptional({ minimum: 1, description: 'no limit when absent' })(target, key);
  IsOptional()(target, key);
  IsInt()(target, key);
  Min(1)(target, key);
  Max(Number.MAX_SAFE_INTEGER)(target, key);
};

export class CreateCollectionDto {
  @IsNetwork() network!: Network;
  @IsText(64, 'Example Collection') name!: string;
  @IsOptionalText(16) symbol?: string;
  @IsText(2000, 'A collection') description!: string;
  @IsImages() images!: string[];
  @IsOptionalUri() website?: string;
  @IsAttributes() attributes?: Record<string, unknown>[];
  @IsSellerFee() seller_fee?: number;
  @MaxSupply() max_supply?: number;
  /** The spec's other spelling of max_supply. */
  @MaxSupply() maxSupply?: number;

  @ApiPropertyOptional({ default: true })
  @IsOptional()
  @IsBoolean()
  uploadMetadata?: boolean;
}

export class MintNftDto implements MintNftInput {
  @IsOptionalNetwork() network?: Network;
  @IsText(64, 'Item #1') name!: string;
  @IsImages() images!: string[];
  @IsOptionalText(2000) description?: string;
  @IsOptionalText(16) symbol?: string;
  @IsOptionalUri() website?: string;
  @IsSellerFee() seller_fee?: number;
  @IsAttributes() attributes?: Record<string, unknown>[];
  @IsAddressField(false) recipient?: string;
}

export class TransferNftDto {
  @IsAddressField(true) recipient!: string;
  @IsOptionalNetwork() network?: Network;
  @IsTokenId(false) token_id?: string;
}

export class BurnNftDto {
  @IsTokenId(false) tokenId?: string;
  @IsOptionalNetwork() network?: Network;
}

export class NftQueryDto {
  @IsOptionalNetwork() network?: Network;
  @IsTokenId(false) token_id?: string;
}
