import { atLoad, ceilingLoad, evmPerWallet, perCore } from './capacity-model';

const cost = { api: 2, worker: 4, postgres: 2.5, redis: 0.5 };

describe('the capacity model', () => {
  it('turns CPU a operation into operations a second a core', () => {
    expect(perCore(cost)).toEqual({ api: 500, worker: 250, postgres: 400, redis: 2000 });
  });

  it('finds the component that cannot scale out and runs out first', () => {
    expect(ceilingLoad(cost, { postgresCores: 8, redisNodes: 1 })).toEqual({
      component: 'redis',
      load: 2000,
    });
    expect(ceilingLoad(cost, { postgresCores: 4, redisNodes: 3 })).toEqual({
      component: 'postgres',
      load: 1600,
    });
    const at = atLoad(cost, { postgresCores: 4, redisNodes: 3 }, 2000);
    expect(at.cores).toEqual({ api: 4, worker: 8, postgres: 5, redis: 1 });
    expect(at.fits).toEqual({ api: true, worker: true, postgres: false, redis: true });
  });

  it("bounds one EVM wallet by block gas or by the node's pending cap", () => {
    const chain = { blockSeconds: 2, blockGas: 30_000_000, carrierShare: 0.5, pendingCap: 64 };
    // 30M / 168k = 178 a block, above the cap of 64: the cap bounds, 32 a second.
    expect(evmPerWallet(chain, 168_000, 47_725)).toMatchObject({
      singles: 32,
      singlesBound: 'pending cap',
    });
    // Two carriers of 15M gas a block, 314 items each.
    expect(evmPerWallet(chain, 168_000, 47_725).airdropItems).toBe(314);
    const small = { ...chain, blockGas: 5_000_000 };
    expect(evmPerWallet(small, 168_000, 47_725)).toMatchObject({
      singles: 14.5,
      singlesBound: 'block gas',
    });
  });
});
