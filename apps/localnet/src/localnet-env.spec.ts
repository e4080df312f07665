import { REALISTIC_CHAINS } from './local-chains';
import { chainBehaviourFromEnv, describeChainBehaviour } from './localnet-env';

describe('chainBehaviourFromEnv', () => {
  it('keeps the quick chain by default', () => {
    expect(chainBehaviourFromEnv({})).toEqual({
      slotMs: 400,
      evmBlockTimeSeconds: 0,
      solanaLandAtSlotBoundary: false,
      rpcLatencyMs: 0,
    });
  });

  it('starts from the realistic preset, each variable overriding its part', () => {
    expect(chainBehaviourFromEnv({ LOCALNET_REALISTIC: '1' })).toEqual(REALISTIC_CHAINS);
    expect(
      chainBehaviourFromEnv({
        LOCALNET_REALISTIC: 'true',
        LOCALNET_EVM_BLOCK_TIME: '0.5',
        LOCALNET_RPC_LATENCY_MS: '80',
        LOCALNET_SOLANA_SLOT_LANDING: '0',
        SLOT_MS: '100',
      }),
    ).toEqual({
      slotMs: 100,
      evmBlockTimeSeconds: 0.5,
      solanaLandAtSlotBoundary: false,
      rpcLatencyMs: 80,
    });
  });

  it.each([
    ['LOCALNET_RPC_LATENCY_MS', '-1'],
    ['LOCALNET_RPC_LATENCY_MS', '2.5'],
    ['LOCALNET_EVM_BLOCK_TIME', 'soon'],
    ['LOCALNET_SOLANA_SLOT_LANDING', 'yes'],
    ['LOCALNET_REALISTIC', '2'],
  ])('refuses %s=%s, naming the variable', (name, value) => {
    expect(() => chainBehaviourFromEnv({ [name]: value })).toThrow(name);
  });

  it('describes what differs from a quick chain', () => {
    expect(describeChainBehaviour(REALISTIC_CHAINS)).toEqual([
      'EVM: a block every 1 s',
      'Solana: 400 ms slots, transactions land when their slot ends',
      'RPC latency: +30 ms round trip (proxy)',
    ]);
  });
});
