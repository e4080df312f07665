import type { Network } from '@app/config';
import { IsNetwork } from '../../http/network.validator';

export class CreateWalletDto {
  @IsNetwork()
  network!: Network;
}
