import type { Network } from '@app/config';
import { IsOptionalNetwork } from '../../http/network.validator';

export class WalletQueryDto {
  /** Picks the EVM network of an EVM address (default: the deployment's default). */
  @IsOptionalNetwork()
  network?: Network;
}
