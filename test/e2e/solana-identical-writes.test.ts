import { Connection, Keypair, PublicKey } from '@solana/web3.js';
import {
  TOKEN_2022_PROGRAM_ID,
  TokenAccountNotFoundError,
  getAccount,
  getAssociatedTokenAddressSync,
  getMint,
} from '@solana/spl-token';
import { landedSolanaTransaction } from '@test/support/chain-reads';
import { settledOperation, summary, type Data } from '@test/support/envelope-assertions';
import type { HttpClient } from '@test/support/http-client';
import {
  newAccountClient,
  startServiceStack,
  type ServiceStack,
} from '@test/support/service-stack';

jest.setTimeout(180_000);

/**
 * Identical writes on Solana: the same request body sent several times, one after another
 * within a second or all at once. Without something unique in each transaction, two operations
 * with one intent compile to one message (same signer, instructions and blockhash), so one
 * signature: the chain runs it once and every operation adopts it. Each operation's transaction
 * carries a memo naming it, so N requests are N transactions, each with its own signature.
 */

const IMAGE = 'https://example.com/identical.png';
const SEQUENTIAL = 5;
const PARALLEL = 8;

let stack: ServiceStack;
let connection: Connection;
let api: HttpClient;
let token: string;
let collection: string;

beforeAll(async () => {
  // Three workers, as scaled out: the wallet's shard is one worker's, the others stand by.
  stack = await startServiceStack({ workers: 3, env: { RATE_LIMIT_REQUESTS: '100000' } });
  connection = new Connection(stack.chains.solanaRpcUrl, { commitment: 'confirmed' });
  api = (await newAccountClient(stack.http)).api;
  const [tokenCreated, collectionCreated] = await Promise.all([
    api.post('/tokens', {
      network: 'solana',
      name: 'Identical',
      symbol: 'IDW',
      amount: 1_000,
      decimals: 0,
    }),
    api.post('/nfts', {
      network: 'solana',
      name: 'Identical',
      description: 'identical writes',
      images: [IMAGE],
    }),
  ]);
  expect([summary(tokenCreated), summary(collectionCreated)]).toMatchObject([
    { status: 200 },
    { status: 200 },
  ]);
  token = tokenCreated.body.data.mint_address;
  collection = collectionCreated.body.data.mint_address;
});

afterAll(async () => {
  await stack?.stop();
});

// ---------------------------------------------------------------------------------------------
// Sending the same request N times, and the test's own chain reads
// ---------------------------------------------------------------------------------------------

/** What one of the identical requests came to: an operation, or a refusal before one. */
type Sent = { operationId: string } | { status: number; error: string };

async function sendOnce(path: string, body: object): Promise<Sent> {
  const response = await api.post(path, body, { prefer: 'respond-async' });
  if (response.status === 202) return { operationId: response.body.data.operation_id as string };
  return { status: response.status, error: response.body.error as string };
}

const modes = {
  /** One after another, each answered 202 at once: all sent within about a second. */
  'in sequence': async (count: number, path: string, body: object): Promise<Sent[]> => {
    const sent: Sent[] = [];
    for (let i = 0; i < count; i++) sent.push(await sendOnce(path, body));
    return sent;
  },
  'in parallel': (count: number, path: string, body: object): Promise<Sent[]> =>
    Promise.all(Array.from({ length: count }, () => sendOnce(path, body))),
};

async function settleAll(sent: Sent[]): Promise<Data[]> {
  return Promise.all(
    sent.flatMap((one) => ('operationId' in one ? [settledOperation(api, one.operationId)] : [])),
  );
}

/**
 * Every operation signed its own transaction (no two share a signature), and every confirmed
 * one landed carrying the memo that names it.
 */
async function expectOwnTransactions(operations: Data[]): Promise<void> {
  const signatures = operations.map((operation) => operation.tx as string | null);
  const signed = signatures.filter((tx): tx is string => tx !== null);
  expect(new Set(signed).size).toBe(signed.length);
  for (const operation of operations.filter((op) => op.status === 'confirmed')) {
    const landed = await landedSolanaTransaction(connection, operation.tx);
    expect(landed.memos).toEqual([`ais:${operation.operation_id}`]);
    expect(landed.logs).toContain(`Program log: ais:${operation.operation_id}`);
  }
}

const supplyOf = async (mint: string): Promise<bigint> =>
  (await getMint(connection, new PublicKey(mint), 'confirmed', TOKEN_2022_PROGRAM_ID)).supply;

async function balanceOf(mint: string, owner: string): Promise<bigint> {
  const address = getAssociatedTokenAddressSync(
    new PublicKey(mint),
    new PublicKey(owner),
    true,
    TOKEN_2022_PROGRAM_ID,
  );
  try {
    return (await getAccount(connection, address, 'confirmed', TOKEN_2022_PROGRAM_ID)).amount;
  } catch (error) {
    if (error instanceof TokenAccountNotFoundError) return 0n;
    throw error;
  }
}

async function mintItem(): Promise<string> {
  const response = await api.post(`/nfts/${collection}/mint`, { name: 'Item', images: [IMAGE] });
  expect(summary(response)).toMatchObject({ status: 200 });
  return response.body.data.mint_address as string;
}

const randomAddress = () => Keypair.generate().publicKey.toBase58();

// ---------------------------------------------------------------------------------------------

describe.each([
  ['in sequence', SEQUENTIAL],
  ['in parallel', PARALLEL],
] as const)('identical Solana writes sent %s', (mode, count) => {
  const send = modes[mode];

  it(`${count} token mints of 1: the supply grows by ${count}, each with its own transaction`, async () => {
    const before = await supplyOf(token);
    const operations = await settleAll(await send(count, `/tokens/${token}/mint`, { amount: 1 }));
    expect(operations).toHaveLength(count);
    expect(operations.map((op) => op.status)).toEqual(Array(count).fill('confirmed'));
    await expectOwnTransactions(operations);
    expect(await supplyOf(token)).toBe(before + BigInt(count));
  });

  it(`${count} token burns of 1: the supply falls by ${count}`, async () => {
    const before = await supplyOf(token);
    const operations = await settleAll(await send(count, `/tokens/${token}/burn`, { amount: 1 }));
    expect(operations.map((op) => op.status)).toEqual(Array(count).fill('confirmed'));
    await expectOwnTransactions(operations);
    expect(await supplyOf(token)).toBe(before - BigInt(count));
  });

  it(`${count} token transfers of 1 to one recipient: it receives ${count}`, async () => {
    const recipient = randomAddress();
    const operations = await settleAll(
      await send(count, `/tokens/${token}/transfer`, { recipient, amount: 1 }),
    );
    expect(operations.map((op) => op.status)).toEqual(Array(count).fill('confirmed'));
    await expectOwnTransactions(operations);
    expect(await balanceOf(token, recipient)).toBe(BigInt(count));
  });

  /**
   * The same item to the same recipient N times: one transfer happens; every other request is
   * refused (403/409), at the API or as a failed operation, never confirmed with the first's tx.
   */
  it(`${count} transfers of one item to one recipient: one confirmed, the rest refused`, async () => {
    const item = await mintItem();
    const recipient = randomAddress();
    const sent = await send(count, `/nfts/${item}/transfer`, { recipient });
    const operations = await settleAll(sent);
    expectOneDone(sent, operations);
    await expectOwnTransactions(operations);
    expect(await balanceOf(item, recipient)).toBe(1n);
  });

  it(`${count} burns of one item: one confirmed, the rest refused`, async () => {
    const item = await mintItem();
    const sent = await send(count, `/nfts/${item}/burn`, {});
    const operations = await settleAll(sent);
    expectOneDone(sent, operations);
    await expectOwnTransactions(operations);
    expect(await supplyOf(item)).toBe(0n);
  });
});

/** Exactly one operation confirmed; every other request refused with 403 or 409. */
function expectOneDone(sent: Sent[], operations: Data[]): void {
  expect(operations.filter((op) => op.status === 'confirmed')).toHaveLength(1);
  const refusals = [
    ...sent.flatMap((one) => ('operationId' in one ? [] : [one.error])),
    ...operations.filter((op) => op.status === 'failed').map((op) => op.error?.error as string),
  ];
  expect(refusals).toHaveLength(sent.length - 1);
  for (const refusal of refusals) expect(['Forbidden', 'Conflict']).toContain(refusal);
}
