/** What the EVM benchmarks share: the raw script's collection and receipts, the service's collection. */
import {
  ContractFactory,
  type BaseWallet,
  type Contract,
  type JsonRpcProvider,
  type Signer,
} from 'ethers';
import { assetCollectionArtifact } from '@app/chains';
import { REALISTIC_CHAINS, type LocalChainsOptions } from '@app/localnet';
import { queryDatabase } from '@test/support/chain-reads';
import type { HttpClient } from '@test/support/http-client';

/** anvil's funded development accounts come from this mnemonic. */
export const ANVIL_MNEMONIC = 'test test test test test test test test test test test junk';
export const URI = 'https://example.com/metadata/00000000-0000-0000-0000-000000000000';
export const IMAGE = 'https://example.com/b.png';

/** The raw scripts' provider: no answer caching (nonces), fast polling (local chains). */
export const RAW_PROVIDER_OPTIONS = {
  cacheTimeout: -1,
  pollingInterval: 10,
  staticNetwork: true,
  batchStallTime: 0,
} as const;

/**
 * The raw scripts' mints: the wallet mints itself an item of `collection`, signed ahead at an
 * explicit nonce (type 2, gas estimated once, with `gasMarginPercent` on top, and the node's
 * fees). `firstNonce` is the wallet's next nonce when it was made.
 */
export async function rawMintSigner(
  wallet: BaseWallet,
  collection: Contract,
  gasMarginPercent = 0,
): Promise<{ firstNonce: number; sign: (nonce: number) => Promise<string> }> {
  const provider = wallet.provider!;
  const to = await collection.getAddress();
  const data = collection.interface.encodeFunctionData('mint', [wallet.address, URI]);
  const estimate = await provider.estimateGas({ from: wallet.address, to, data });
  const gasLimit = (estimate * BigInt(100 + gasMarginPercent)) / 100n;
  const { maxFeePerGas, maxPriorityFeePerGas } = await provider.getFeeData();
  const { chainId } = await provider.getNetwork();
  const firstNonce = await provider.getTransactionCount(wallet.address, 'pending');
  return {
    firstNonce,
    sign: (nonce) =>
      wallet.signTransaction({
        type: 2,
        chainId,
        to,
        data,
        nonce,
        gasLimit,
        maxFeePerGas,
        maxPriorityFeePerGas,
      }),
  };
}

export async function deployCollection(signer: Signer): Promise<Contract> {
  const owner = await signer.getAddress();
  const factory = new ContractFactory(
    assetCollectionArtifact.abi,
    assetCollectionArtifact.bytecode,
    signer,
  );
  const contract = await factory.deploy('Raw', 'RAW', URI, '', 0, owner, 500, owner);
  await contract.waitForDeployment();
  return contract as Contract;
}

export async function waitForReceipt(
  provider: JsonRpcProvider,
  hash: string,
  pollMs = 5,
): Promise<void> {
  for (;;) {
    const receipt = await provider.send('eth_getTransactionReceipt', [hash]);
    if (receipt) return;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

/** A collection of the account's managed wallet on `network`, created through the API. */
export async function serviceCollection(api: HttpClient, network = 'base'): Promise<string> {
  const created = await api.post('/nfts', {
    network,
    name: 'Bench',
    description: 'benchmark collection',
    images: [IMAGE],
  });
  if (created.status !== 200) throw new Error(`collection: ${JSON.stringify(created.body)}`);
  return created.body.data.mint_address as string;
}

/**
 * The chain the scheduling benchmarks run on: by default REALISTIC_CHAINS (1 s EVM blocks, 30 ms
 * RPC round trip), with a block gas limit high enough (1e9, ~5,800 mints) that the chain never
 * caps the service; `BENCH_CHAIN=quiet` runs on the automining chain of the tests instead.
 */
export function benchChain(): { name: string; options: LocalChainsOptions } {
  if (process.env.BENCH_CHAIN === 'quiet')
    return { name: 'quiet (automine, no latency)', options: {} };
  const blockTime = Number(
    process.env.BENCH_EVM_BLOCK_TIME ?? REALISTIC_CHAINS.evmBlockTimeSeconds,
  );
  const latency = Number(process.env.BENCH_RPC_LATENCY_MS ?? REALISTIC_CHAINS.rpcLatencyMs);
  return {
    name: `realistic (${blockTime} s EVM blocks, ${latency} ms RPC round trip)`,
    options: {
      ...REALISTIC_CHAINS,
      evmBlockTimeSeconds: blockTime,
      rpcLatencyMs: latency,
      anvilArgs: ['--gas-limit', '1000000000'],
      // The raw baseline pre-signs 100 mints a wallet and sends them at once, which a node
      // capping one sender's pending transactions refuses: these figures are the chain's
      // throughput without that cap (bench:airdrop measures under it).
      evmSenderPendingCap: 0,
    },
  };
}

export function intFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  const value = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
  return value;
}

/** The database's operations of one kind by outcome: the benchmarks watch a backlog drain here. */
export async function operationCounts(
  databaseUrl: string,
  kind: string,
  signer?: string,
): Promise<{ confirmed: number; failed: number; pending: number }> {
  // How many of the kind's operations (of one managed wallet, or all) have settled either way.
  const [row] = await queryDatabase<{ confirmed: string; failed: string; pending: string }>(
    databaseUrl,
    `SELECT count(*) FILTER (WHERE status = 'confirmed') AS confirmed,
            count(*) FILTER (WHERE status = 'failed') AS failed,
            count(*) FILTER (WHERE status NOT IN ('confirmed', 'failed')) AS pending
       FROM operations
      WHERE kind = $1 AND ($2::text IS NULL OR lower(signer) = lower($2))`,
    [kind, signer ?? null],
  );
  return {
    confirmed: Number(row.confirmed),
    failed: Number(row.failed),
    pending: Number(row.pending),
  };
}

/** The account's managed EVM wallet, from what registration answered. */
export function evmWalletOf(account: { wallets: { public_key: string }[] }): string {
  const wallet = account.wallets.find((w) => w.public_key.startsWith('0x'));
  if (!wallet) throw new Error('the account has no managed EVM wallet');
  return wallet.public_key;
}
