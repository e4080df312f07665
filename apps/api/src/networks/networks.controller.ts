import { Controller, Get, Inject } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { NetworkRegistry, type NetworkDefinition } from '@app/chains';
import { ok, type SuccessEnvelope } from '@app/common';
import { APP_CONFIG, NETWORKS, type AppConfig, type Network } from '@app/config';
import { Public } from '../auth/auth.decorators';
import { ApiEnvelope } from '../http/docs/api-envelope.decorator';
import { NETWORK_LIST } from './network.schema';

export interface NetworkView {
  network: Network;
  /** The network `evm` stands for, and each other name itself. */
  resolved_network: string;
  family: 'solana' | 'evm';
  chain_id: number | null;
  currency: string;
  /** Explorer page templates (`{tx}`, `{address}`); null on local chains. */
  explorer_tx_url: string | null;
  explorer_address_url: string | null;
}

/** The spec's network names and the chain each runs on in this deployment (public facts). */
@ApiTags('networks')
@Public()
@Controller('networks')
export class NetworksController {
  private readonly views: NetworkView[];

  constructor(registry: NetworkRegistry, @Inject(APP_CONFIG) config: AppConfig) {
    this.views = NETWORKS.map((network) => networkView(network, registry.resolve(network), config));
  }

  @Get()
  @ApiEnvelope('Every network name, its chain and its public explorer', NETWORK_LIST, [])
  list(): SuccessEnvelope<{ networks: NetworkView[] }> {
    return ok({ networks: this.views }, 'Networks.');
  }
}

function networkView(
  network: Network,
  definition: NetworkDefinition,
  config: AppConfig,
): NetworkView {
  const explorer = definition.explorer;
  const page = (kind: 'tx' | 'address') =>
    explorer ? `${explorer.baseUrl}/${kind}/{${kind}}${explorer.query}` : null;
  return {
    network,
    resolved_network: network === 'evm' ? config.chains.defaultEvmNetwork : network,
    family: definition.family,
    chain_id: definition.family === 'evm' ? definition.chainId : null,
    currency: definition.currency.symbol,
    explorer_tx_url: page('tx'),
    explorer_address_url: page('address'),
  };
}
