import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import type { Network } from '@app/config';
import type { CreateTokenInput, TokenAmountInput } from '@app/domain';
import {
  IsAddressField,
  IsAmount,
  IsOptionalText,
  IsOptionalUri,
  IsSellerFee,
  IsText,
} from '../../http/field.validators';
import { IsNetwork, IsOptionalNetwork } from '../../http/network.validator';

export class CreateTokenDto implements CreateTokenInput {
  @IsNetwork() network!: Network;
  @IsText(64, 'Example Token') name!: string;
  @IsText(16, 'EXT') symbol!: string;
  @IsAmount() amount!: number | string;

  @ApiPropertyOptional({ minimum: 0, maximum: 18, description: 'default 9 on Solana, 18 on EVM' })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(18)
  decimals?: number;

  @IsOptionalText(2000) description?: string;
  @IsOptionalUri() image?: string;
  @IsOptionalUri() website?: string;
  @IsSellerFee() seller_fee?: number;
}

export class MintTokenDto implements TokenAmountInput {
  @IsAmount() amount!: number | string;
  @IsAddressField(false) recipient?: string;
  @IsOptionalNetwork() network?: Network;
}

export class BurnTokenDto implements TokenAmountInput {
  @IsAmount() amount!: number | string;
  @IsOptionalNetwork() network?: Network;
}

export class TransferTokenDto implements TokenAmountInput {
  @IsAddressField(true) recipient!: string;
  @IsAmount() amount!: number | string;
  @IsOptionalNetwork() network?: Network;
}

export class AssetQueryDto {
  @IsOptionalNetwork() network?: Network;
}
