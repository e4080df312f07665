/**
 * litesvm called directly vs. the same transfers through the localnet Solana JSON-RPC server.
 * Run: npm run bench:solana-rpc  (BENCH_TXS=2000 by default)
 */
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { Agent, request } from 'node:http';
import {
  getCompiledTransactionMessageEncoder,
  getTransactionDecoder,
  getTransactionEncoder,
  lamports,
  type Address,
  type SignatureBytes,
  type TransactionMessageBytes,
} from '@solana/kit';
import bs58 from 'bs58';
import { FailedTransactionMetadata, LiteSVM } from 'litesvm';
import { startSolanaRpc } from '@app/localnet';

const SYSTEM_PROGRAM = '11111111111111111111111111111111' as Address;
const PAYERS = 50;
const PAYER_LAMPORTS = 100_000_000_000n;

export interface SolanaRpcBenchResult {
  transactions: number;
  directTxPerSecond: number;
  rpcTxPerSecond: number;
  ratio: number;
}

interface Payer {
  address: Address;
  key: KeyObject;
}

const messageEncoder = getCompiledTransactionMessageEncoder();
const transactionEncoder = getTransactionEncoder();

function newPayer(): Payer {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url');
  return { address: bs58.encode(raw) as Address, key: privateKey };
}

/** A signed legacy system transfer (distinct amounts keep every signature unique). */
function transfer(from: Payer, to: Address, amount: bigint, blockhash: string): Uint8Array {
  const data = new Uint8Array(12);
  const view = new DataView(data.buffer);
  view.setUint32(0, 2, true);
  view.setBigUint64(4, amount, true);
  const messageBytes = messageEncoder.encode({
    version: 'legacy',
    header: { numSignerAccounts: 1, numReadonlySignerAccounts: 0, numReadonlyNonSignerAccounts: 1 },
    staticAccounts: [from.address, to, SYSTEM_PROGRAM],
    lifetimeToken: blockhash,
    instructions: [{ programAddressIndex: 2, accountIndices: [0, 1], data }],
  }) as TransactionMessageBytes;
  const signature = new Uint8Array(
    sign(null, Buffer.from(messageBytes), from.key),
  ) as SignatureBytes;
  return new Uint8Array(
    transactionEncoder.encode({ messageBytes, signatures: { [from.address]: signature } }),
  );
}

function buildTransfers(payers: Payer[], count: number, blockhash: string): Uint8Array[] {
  const recipient = newPayer().address;
  return Array.from({ length: count }, (_, i) =>
    transfer(payers[i % payers.length], recipient, BigInt(1_000_000 + i), blockhash),
  );
}

function runDirect(count: number): number {
  const svm = new LiteSVM();
  const payers = Array.from({ length: PAYERS }, newPayer);
  for (const payer of payers) svm.airdrop(payer.address, lamports(PAYER_LAMPORTS));
  const decoder = getTransactionDecoder();
  const txs = buildTransfers(payers, count, svm.latestBlockhash()).map((bytes) =>
    decoder.decode(bytes),
  );
  const started = performance.now();
  for (const tx of txs) {
    const result = svm.sendTransaction(tx);
    if (result instanceof FailedTransactionMetadata)
      throw new Error(`direct transfer failed: ${result.toString()}`);
  }
  return count / ((performance.now() - started) / 1000);
}

async function runRpc(count: number): Promise<number> {
  const solana = await startSolanaRpc({ port: 0, wsPort: 0, slotMs: 400 });
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const rpc = async <T>(method: string, params: unknown[]): Promise<T> => {
    const body = await post(
      solana.rpcUrl,
      JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      agent,
    );
    const parsed = JSON.parse(body) as { result?: T; error?: { message: string } };
    if (parsed.error) throw new Error(`${method}: ${parsed.error.message}`);
    return parsed.result as T;
  };
  try {
    const payers = Array.from({ length: PAYERS }, newPayer);
    const airdrops = await Promise.all(
      payers.map((p) => rpc<string>('requestAirdrop', [p.address, Number(PAYER_LAMPORTS)])),
    );
    await waitForStatuses(rpc, airdrops);
    const { value } = await rpc<{ value: { blockhash: string } }>('getLatestBlockhash', [
      { commitment: 'confirmed' },
    ]);
    const wires = buildTransfers(payers, count, value.blockhash).map((bytes) =>
      Buffer.from(bytes).toString('base64'),
    );

    const started = performance.now();
    const signatures = await Promise.all(
      wires.map((wire) =>
        rpc<string>('sendTransaction', [
          wire,
          { encoding: 'base64', preflightCommitment: 'confirmed' },
        ]),
      ),
    );
    await waitForStatuses(rpc, signatures);
    return count / ((performance.now() - started) / 1000);
  } finally {
    agent.destroy();
    await solana.stop();
  }
}

async function waitForStatuses(
  rpc: <T>(method: string, params: unknown[]) => Promise<T>,
  signatures: string[],
): Promise<void> {
  let pending = signatures;
  while (pending.length > 0) {
    const still: string[] = [];
    for (let i = 0; i < pending.length; i += 256) {
      const batch = pending.slice(i, i + 256);
      const { value } = await rpc<{ value: ({ err: unknown } | null)[] }>('getSignatureStatuses', [
        batch,
      ]);
      value.forEach((status, j) => {
        if (status === null) still.push(batch[j]);
        else if (status.err !== null)
          throw new Error(`transaction ${batch[j]} failed: ${JSON.stringify(status.err)}`);
      });
    }
    pending = still;
    if (pending.length > 0) await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function post(url: string, body: string, agent: Agent): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', agent, headers: { 'content-type': 'application/json' } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export async function run(
  transactions = Number(process.env.BENCH_TXS ?? 2_000),
): Promise<SolanaRpcBenchResult> {
  const directTxPerSecond = runDirect(transactions);
  const rpcTxPerSecond = await runRpc(transactions);
  return {
    transactions,
    directTxPerSecond,
    rpcTxPerSecond,
    ratio: rpcTxPerSecond / directTxPerSecond,
  };
}

if (require.main === module) {
  run().then(
    (r) => {
      console.log(`solana-rpc bench: ${r.transactions} transfers`);
      console.log(`  litesvm direct:      ${r.directTxPerSecond.toFixed(0)} tx/s`);
      console.log(`  via JSON-RPC (HTTP): ${r.rpcTxPerSecond.toFixed(0)} tx/s`);
      console.log(`  ratio rpc/direct:    ${r.ratio.toFixed(3)}`);
    },
    (err: unknown) => {
      console.error(err);
      process.exitCode = 1;
    },
  );
}
