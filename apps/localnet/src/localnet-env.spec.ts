import { REALISTIC_CHAINS } from './local-chains';
import { chainBehaviourFromEnv, describeChainBehaviour } from './localnet-env';

describe('chainBehaviourFromEnv', () => {
  it('keeps the quick chain by default', () => {
    expect(chainBehaviourFromEnv({})).toEqual({
      slotMs: 400,
      evmBlockTimeSeconds: 0,
      solanaLandAtSlotBoundary: false,
      rpcLatencyMs: 0,
      evmSenderPendingCap: 0,
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
        LOCALNET_EVM_SENDER_CAP: '8',
        SLOT_MS: '100',
      }),
    ).toEqual({
      slotMs: 100,
      evmBlockTimeSeconds: 0.5,
      solanaLandAtSlotBoundary: false,
      rpcLatencyMs: 80,
      evmSenderPendingCap: 8,
    });
    // 0 turns the preset's cap off; the quick chain takes one too.
    expect(
      chainBehaviourFromEnv({ LOCALNET_REALISTIC: '1', LOCALNET_EVM_SENDER_CAP: '0' }),
    ).toMatchObject({ evmSenderPendingCap: 0 });
    expect(chainBehaviourFromEnv({ LOCALNET_EVM_SENDER_CAP: '16' })).toMatchObject({
      evmBlockTimeSeconds: 0,
      evmSenderPendingCap: 16,
    });
  });

  it.each([
    ['LOCALNET_RPC_LATENCY_MS', '-1'],
    ['LOCALNET_RPC_LATENCY_MS', '2.5'],
    ['LOCALNET_EVM_BLOCK_TIME', 'soon'],
    ['LOCALNET_SOLANA_SLOT_LANDING', 'yes'],
    ['LOCALNET_EVM_SENDER_CAP', '1.5'],
    ['LOCALNET_EVM_SENDER_CAP', '-8'],
    ['LOCALNET_REALISTIC', '2'],
  ])('refuses %s=%s, naming the variable', (name, value) => {
    expect(() => chainBehaviourFromEnv({ [name]: value })).toThrow(name);
  });

  it('describes what differs from a quick chain', () => {
    expect(describeChainBehaviour(REALISTIC_CHAINS)).toEqual([
      'EVM: a block every 1 s',
      'Solana: 400 ms slots, transactions land when their slot ends',
      'EVM: at most 64 pending transactions per sender (more: "account limit exceeded", as geth)',
      'RPC latency: +30 ms round trip (proxy)',
    ]);
    expect(describeChainBehaviour({})).toEqual([
      'EVM: a block per transaction',
      'Solana: 400 ms slots, transactions final at once',
    ]);
  });
});
