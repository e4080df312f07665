/**
 * The capacity model (docs/capacity.md): from the CPU each component spends on one operation,
 * what one core of it carries, what one wallet can land on a chain, and which component runs out
 * first as the load grows. Pure arithmetic over measured figures; `capacity.ts` measures them.
 */

/** CPU milliseconds one operation costs each component (bench:mint-cost). */
export interface ComponentCost {
  api: number;
  worker: number;
  postgres: number;
  redis: number;
}

/** How far each component scales: `null` = out (add instances); a number = cores at most. */
export interface ScaleLimits {
  /** One primary takes every write: its cores are the ceiling (read replicas take GETs only). */
  postgresCores: number;
  /** Redis runs commands on one thread a node; a Cluster spreads the queues over its masters. */
  redisNodes: number;
}

export interface Chain {
  /** Seconds between blocks. */
  blockSeconds: number;
  /** Gas limit of a block. */
  blockGas: number;
  /** Share of a block the service lets one carrier use (AIRDROP_BLOCK_GAS_PERCENT / 100). */
  carrierShare: number;
  /** Pending transactions a public node lets one sender have (geth's default account slots). */
  pendingCap: number;
}

export interface PerWallet {
  /** Single mints a second one wallet can land, and what bounds it. */
  singles: number;
  singlesBound: 'block gas' | 'pending cap';
  /** Airdrop items a second, packed into carriers of `carrierShare` of a block. */
  airdropItems: number;
}

export type Component = keyof ComponentCost;

/** Operations a second one core of each component carries. */
export function perCore(cost: ComponentCost): Record<Component, number> {
  const rate = (ms: number) => (ms > 0 ? 1000 / ms : Infinity);
  return {
    api: rate(cost.api),
    worker: rate(cost.worker),
    postgres: rate(cost.postgres),
    redis: rate(cost.redis),
  };
}

/**
 * One EVM wallet: its sends are serial by nonce, so what lands is bounded by what fits in a
 * block (block gas over gas a mint) and by the pending cap (at most that many in a block, if
 * each waits one block); an airdrop's items ride in carriers of `carrierShare` of a block.
 */
export function evmPerWallet(chain: Chain, gasPerMint: number, gasPerItem: number): PerWallet {
  const byGas = Math.floor(chain.blockGas / gasPerMint);
  const singlesPerBlock = Math.min(byGas, chain.pendingCap);
  const itemsPerCarrier = Math.floor((chain.blockGas * chain.carrierShare) / gasPerItem);
  const carriersPerBlock = Math.min(Math.floor(1 / chain.carrierShare), chain.pendingCap);
  return {
    singles: singlesPerBlock / chain.blockSeconds,
    singlesBound: byGas <= chain.pendingCap ? 'block gas' : 'pending cap',
    airdropItems: (itemsPerCarrier * carriersPerBlock) / chain.blockSeconds,
  };
}

/**
 * At `load` operations a second: the cores each component needs, and whether that fits in what
 * it can have (API and worker scale out without bound; Postgres up to its primary's cores;
 * Redis one core a node).
 */
export function atLoad(
  cost: ComponentCost,
  limits: ScaleLimits,
  load: number,
): { cores: Record<Component, number>; fits: Record<Component, boolean> } {
  const cores: Record<Component, number> = {
    api: (load * cost.api) / 1000,
    worker: (load * cost.worker) / 1000,
    postgres: (load * cost.postgres) / 1000,
    redis: (load * cost.redis) / 1000,
  };
  return {
    cores,
    fits: {
      api: true,
      worker: true,
      postgres: cores.postgres <= limits.postgresCores,
      redis: cores.redis <= limits.redisNodes,
    },
  };
}

/** The load (operations a second) at which a bounded component runs out first, and which. */
export function ceilingLoad(
  cost: ComponentCost,
  limits: ScaleLimits,
): { load: number; component: Component } {
  const candidates: [Component, number][] = [
    ['postgres', (limits.postgresCores * 1000) / cost.postgres],
    ['redis', (limits.redisNodes * 1000) / cost.redis],
  ];
  const [component, load] = candidates.sort((a, b) => a[1] - b[1])[0];
  return { load, component };
}
