import { randomUUID } from 'node:crypto';
import { Keypair, PACKET_DATA_SIZE, PublicKey } from '@solana/web3.js';
import { TOKEN_2022_PROGRAM_ID, unpackAccount } from '@solana/spl-token';
import type { AssetIntent } from '@app/common';
import { loadConfig } from '@app/config';
import {
  MAX_COMPUTE_UNITS,
  SolanaAdapter,
  TOKEN_MINT_BATCH_BASE_COMPUTE_UNITS,
  TOKEN_MINT_COMPUTE_UNITS,
  buildDefinitions,
  carrierNonce,
  compileLegacyMessage,
  ed25519Signer,
  framedInstructions,
  newEd25519Seed,
  planSolanaTransaction,
  signWire,
  signedTransactionLength,
  solanaOutcome,
  tokenAccountAndBump,
  tokenAccountOf,
  tokenMintBatchComputeUnits,
  tokenMintBatchInstructions,
  tokenMintsPerTransaction,
  unsignedWire,
  type CompiledMessage,
  type Ed25519Signer,
  type PlannedTransaction,
  type SolanaNetworkDefinition,
  type SolanaSendSettings,
} from '@app/chains';
import { startSolanaRpc, type SolanaRpcHandle } from '@app/localnet';
import { letWebSocketIdle, sleep } from '../localnet/solana-fixtures';

jest.setTimeout(60_000);

const DECIMALS = 6;

/**
 * token.mintBatch as the worker will send it: planned (simulated and sized) by the planner,
 * signed like the Solana lifecycle signs, sent to the local chain's JSON-RPC.
 */
describe('Solana token.mintBatch on the local chain', () => {
  let solana: SolanaRpcHandle;
  let adapter: SolanaAdapter;
  let network: SolanaNetworkDefinition;
  let settings: SolanaSendSettings;
  let authority: Ed25519Signer;
  let mint: string;

  /** Plans, signs and sends one operation; resolves once it has landed without error. */
  async function land(
    intent: AssetIntent,
    newMint?: Ed25519Signer,
  ): Promise<{ planned: PlannedTransaction; wire: Buffer }> {
    const planned = await planSolanaTransaction(
      adapter,
      network,
      authority.address,
      randomUUID(),
      intent,
      newMint?.address,
      settings,
    );
    const { wire, signature } = signWire(planned.message.bytes, planned.message.signers, [
      authority,
      ...(newMint ? [newMint] : []),
    ]);
    expect(await adapter.send(network, wire, { preflight: true })).toEqual({ kind: 'accepted' });
    const deadline = Date.now() + 10_000;
    for (;;) {
      const status = await adapter.signatureStatus(network, signature);
      if (status) {
        expect(status.err).toBeNull();
        return { planned, wire };
      }
      if (Date.now() > deadline) throw new Error(`${signature} did not land`);
      await sleep(20);
    }
  }

  /** What simulation (as the planner runs it) says a message consumes. */
  async function unitsOf(message: CompiledMessage): Promise<number> {
    const wire = unsignedWire(message.bytes, message.signers.length);
    const simulation = await adapter.simulate(network, wire);
    expect(simulation.err).toBeNull();
    return simulation.unitsConsumed;
  }

  async function balancesOf(owners: string[]): Promise<(bigint | null)[]> {
    const mintKey = new PublicKey(mint);
    const atas = owners.map((owner) => tokenAccountOf(mintKey, new PublicKey(owner)));
    const accounts = await adapter.accounts(network, atas);
    return accounts.map((account, i) =>
      account ? unpackAccount(atas[i], account, TOKEN_2022_PROGRAM_ID).amount : null,
    );
  }

  const batch = (recipients: string[], amounts: bigint[]): AssetIntent => ({
    kind: 'token.mintBatch',
    asset: mint,
    recipients,
    amounts: amounts.map(String),
    decimals: DECIMALS,
  });

  const freshOwners = (count: number): string[] =>
    Array.from({ length: count }, () => Keypair.generate().publicKey.toBase58());

  beforeAll(async () => {
    solana = await startSolanaRpc({ port: 0, wsPort: 0 });
    const config = loadConfig({
      LOCAL_SOLANA_RPC_URL: solana.rpcUrl,
      LOCAL_SOLANA_WS_URL: solana.wsUrl,
    });
    network = buildDefinitions(config).get('solana') as SolanaNetworkDefinition;
    adapter = new SolanaAdapter(config);
    // A compute-unit price is paid: the price instruction is in, as in the capacity's worst case.
    settings = { ...config.solana, priorityFeeMicroLamports: 1, priorityFeeMaxMicroLamports: 1 };
    authority = ed25519Signer(newEd25519Seed());
    await adapter.fundForDevelopment(network, authority.address);

    const newMint = ed25519Signer(newEd25519Seed());
    await land(
      {
        kind: 'token.create',
        name: 'Airdrop Token',
        symbol: 'DROP',
        decimals: DECIMALS,
        initialSupply: '1000000',
        metadataUri: 'https://example.com/drop.json',
      },
      newMint,
    );
    mint = newMint.address;
  });

  afterAll(async () => {
    adapter?.onApplicationShutdown();
    await letWebSocketIdle();
    await solana?.stop();
  });

  it('lands the most distinct fresh recipients one transaction carries, each credited', async () => {
    const capacity = tokenMintsPerTransaction();
    expect(capacity).toBeGreaterThanOrEqual(8);
    const recipients = freshOwners(capacity);
    const amounts = recipients.map((_, i) => BigInt(i + 1) * 1_000_000n + 7n);
    const intent = batch(recipients, amounts);

    const { planned, wire } = await land(intent);

    expect(wire.length).toBe(signedTransactionLength(planned.message));
    expect(wire.length).toBeLessThanOrEqual(PACKET_DATA_SIZE);
    expect(await balancesOf(recipients)).toEqual(amounts);
    expect(solanaOutcome(intent, undefined)).toEqual({ items: recipients.map(() => ({})) });
  });

  it('is refused by the node with one recipient more: the packet limit is the bound', async () => {
    // Compiled past the planner, which refuses it itself.
    const payer = new PublicKey(authority.address);
    const recipients = freshOwners(tokenMintsPerTransaction() + 1);
    const { blockhash } = await adapter.latestBlockhash(network);
    const message = compileLegacyMessage(
      payer,
      blockhash,
      framedInstructions(
        tokenMintBatchInstructions({
          authority: payer,
          mint: new PublicKey(mint),
          mints: recipients.map((owner) => ({ recipient: new PublicKey(owner), amount: 1n })),
          decimals: DECIMALS,
        }).instructions,
        carrierNonce(randomUUID()),
        { units: MAX_COMPUTE_UNITS, microLamports: 1 },
      ),
    );
    const { wire } = signWire(message.bytes, message.signers, [authority]);
    expect(wire.length).toBeGreaterThan(PACKET_DATA_SIZE);
    expect(await adapter.send(network, wire, { preflight: true })).toMatchObject({
      kind: 'refused',
      message: expect.stringMatching(/too large/),
    });
    await expect(
      land(batch(recipients, Array<bigint>(recipients.length).fill(1n))),
    ).rejects.toThrow(RangeError);
  });

  it("is sized from its recipients' bump seeds, without simulation, covering what it consumes", async () => {
    const simulations = jest.spyOn(adapter, 'simulate');
    const planned = async (recipients: string[]) => {
      const before = simulations.mock.calls.length;
      const plan = await planSolanaTransaction(
        adapter,
        network,
        authority.address,
        randomUUID(),
        batch(recipients, Array<bigint>(recipients.length).fill(1n)),
        undefined,
        settings,
      );
      expect(simulations.mock.calls.length).toBe(before);
      return plan;
    };
    const bumpOf = (owner: string) =>
      tokenAccountAndBump(new PublicKey(mint), new PublicKey(owner)).bump;
    const { blockhash } = await adapter.latestBlockhash(network);
    const frame = await unitsOf(
      compileLegacyMessage(
        new PublicKey(authority.address),
        blockhash,
        framedInstructions([], carrierNonce(randomUUID()), {
          units: MAX_COMPUTE_UNITS,
          microLamports: 1,
        }),
      ),
    );
    expect(frame).toBeLessThanOrEqual(TOKEN_MINT_BATCH_BASE_COMPUTE_UNITS);

    // Fresh recipients (the planned transactions are simulated here, never sent): each costs
    // what its bump seed says, within a hundred units, and no more than the capacity's budget.
    const recipients = freshOwners(tokenMintsPerTransaction());
    const each: number[] = [];
    for (const recipient of recipients) {
      const units = (await unitsOf((await planned([recipient])).message)) - frame;
      const budgeted =
        tokenMintBatchComputeUnits([bumpOf(recipient)]) - TOKEN_MINT_BATCH_BASE_COMPUTE_UNITS;
      expect(units).toBeLessThanOrEqual(budgeted);
      expect(units).toBeGreaterThan(budgeted - 200);
      expect(units).toBeLessThanOrEqual(TOKEN_MINT_COMPUTE_UNITS);
      each.push(units);
    }
    // Recipients do not share work: the batch costs what its mints cost one by one, and its
    // limit covers that.
    const plan = await planned(recipients);
    const all = await unitsOf(plan.message);
    expect(all).toBe(frame + each.reduce((sum, units) => sum + units, 0));
    expect(Number(plan.fees.computeUnitLimit)).toBeGreaterThanOrEqual(all);
    expect(Number(plan.fees.computeUnitLimit)).toBeLessThanOrEqual(
      Math.ceil(tokenMintBatchComputeUnits(recipients.map(bumpOf)) * 1.5),
    );
    simulations.mockRestore();
  });

  it('is priced by what every carrier writes: one fee lookup for many carriers', async () => {
    // A cap above the floor: the price is looked up, not fixed.
    const looked = { ...settings, priorityFeeMicroLamports: 1, priorityFeeMaxMicroLamports: 1_000 };
    const lookups = jest.spyOn(adapter, 'recentPrioritizationFees');
    const rpc = jest.spyOn(adapter as unknown as { rpc: (...args: unknown[]) => unknown }, 'rpc');
    for (let carrier = 0; carrier < 3; carrier++) {
      await planSolanaTransaction(
        adapter,
        network,
        authority.address,
        randomUUID(),
        batch(freshOwners(4), [1n, 2n, 3n, 4n]),
        undefined,
        looked,
      );
    }
    // The payer and the mint, not the recipients' token accounts (each carrier's own).
    expect(lookups.mock.calls.map(([, accounts]) => accounts)).toEqual(
      Array(3).fill([authority.address, mint]),
    );
    const asked = rpc.mock.calls.filter(([, method]) => method === 'getRecentPrioritizationFees');
    expect(asked).toHaveLength(1);
    lookups.mockRestore();
    rpc.mockRestore();
  });

  it('mints to recipients whose accounts exist (the create is idempotent)', async () => {
    // One recipient got its account from an earlier batch, the authority from token.create
    // (its initial supply); the other two are fresh.
    const [kept, ...fresh] = freshOwners(3);
    await land(batch([kept], [5n]));
    const recipients = [kept, authority.address, ...fresh];
    expect(await balancesOf(recipients)).toEqual([5n, 1_000_000n, null, null]);

    await land(batch(recipients, [7n, 11n, 13n, 17n]));

    expect(await balancesOf(recipients)).toEqual([12n, 1_000_011n, 13n, 17n]);
  });
});
