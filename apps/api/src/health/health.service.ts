import { Inject, Injectable } from '@nestjs/common';
import type { RedisConnection } from '@app/queue';
import {
  ChainRegistry,
  NetworkRegistry,
  type EndpointHealth,
  type EndpointState,
  type NetworkDefinition,
} from '@app/chains';
import { UnitOfWork } from '@app/database';
import { REDIS } from '@app/queue';

export type CheckStatus = 'ok' | 'down';

export interface HealthReport {
  status: CheckStatus;
  postgres: CheckStatus;
  redis: CheckStatus;
  chains: {
    chain: string;
    networks: string[];
    /** ok while any of its RPC endpoints answers. */
    status: CheckStatus;
    endpoints: EndpointView[];
  }[];
}

/** One RPC endpoint of a chain: its URL cut to scheme, host and port (no credentials). */
export interface EndpointView {
  index: number;
  url: string;
  state: EndpointState;
  last_error_at: string | null;
}

const CHECK_TIMEOUT_MS = 2_000;
const CHAIN_CACHE_MS = 5_000;

@Injectable()
export class HealthService {
  private chainCache?: { at: number; report: HealthReport['chains'] };

  constructor(
    private readonly database: UnitOfWork,
    @Inject(REDIS) private readonly redis: RedisConnection,
    private readonly networks: NetworkRegistry,
    private readonly chains: ChainRegistry,
  ) {}

  async check(): Promise<HealthReport> {
    const [postgres, redis, chains] = await Promise.all([
      probe(this.database.ping()),
      probe(this.redis.ping()),
      this.checkChains(),
    ]);
    const allOk = postgres === 'ok' && redis === 'ok' && chains.every((c) => c.status === 'ok');
    return { status: allOk ? 'ok' : 'down', postgres, redis, chains };
  }

  /**
   * One probe per endpoint of each distinct chain (all local EVM networks share one node),
   * cached briefly. The chain is up while one of its endpoints answers: the others fail over.
   */
  private async checkChains(): Promise<HealthReport['chains']> {
    if (this.chainCache && Date.now() - this.chainCache.at < CHAIN_CACHE_MS) {
      return this.chainCache.report;
    }
    const byChain = new Map<string, NetworkDefinition[]>();
    for (const definition of this.networks.all()) {
      byChain.set(definition.chainKey, [...(byChain.get(definition.chainKey) ?? []), definition]);
    }
    const report = await Promise.all(
      [...byChain.values()].map(async (definitions) => {
        const [first] = definitions;
        const endpoints = await this.chains
          .adapter(first.family)
          .probeEndpoints(first, CHECK_TIMEOUT_MS)
          .catch((): EndpointHealth[] => []);
        const up = endpoints.some((endpoint) => endpoint.state === 'up');
        return {
          chain: first.family === 'evm' ? `evm:${first.chainId}` : 'solana',
          networks: definitions.map((definition) => definition.network),
          status: up ? ('ok' as const) : ('down' as const),
          endpoints: endpoints.map(endpointView),
        };
      }),
    );
    this.chainCache = { at: Date.now(), report };
    return report;
  }
}

function endpointView(endpoint: EndpointHealth): EndpointView {
  return {
    index: endpoint.index,
    url: endpoint.url,
    state: endpoint.state,
    last_error_at: endpoint.lastErrorAt?.toISOString() ?? null,
  };
}

async function probe(check: Promise<unknown>): Promise<CheckStatus> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<CheckStatus>((resolve) => {
    timer = setTimeout(() => resolve('down'), CHECK_TIMEOUT_MS);
  });
  try {
    return await Promise.race([check.then((): CheckStatus => 'ok'), timeout]);
  } catch {
    return 'down';
  } finally {
    clearTimeout(timer);
  }
}
