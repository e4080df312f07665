import { Keypair } from '@solana/web3.js';
import { Wallet } from 'ethers';
import { registerSession } from '@test/support/accounts';
import { jsonRpc } from '@test/support/chain-control';
import { queryDatabase } from '@test/support/chain-reads';
import {
  expectError,
  settledOperation,
  summary,
  type Data,
} from '@test/support/envelope-assertions';
import type { HttpClient } from '@test/support/http-client';
import { startServiceStack, type ServiceStack } from '@test/support/service-stack';

jest.setTimeout(240_000);

/**
 * Signing policies (contract: "Deployment topologies and signers"; docs/security.md
 * #signing-policies): set only through a session, refused at the API where the request shows
 * the breach (403, nothing stored), refused in the worker just before signing where only it can
 * tell (the operation fails with the rule), each breach in the audit log. On both families.
 */

const NETWORKS = ['base', 'solana'] as const;
type TestNetwork = (typeof NETWORKS)[number];
const GWEI = 10n ** 9n;

let stack: ServiceStack;
let session: HttpClient;
let api: HttpClient;
const tokens = {} as Record<TestNetwork, string>;
const allowed = {} as Record<TestNetwork, string>;
const stranger = {} as Record<TestNetwork, string>;

function newAddress(network: TestNetwork): string {
  return network === 'solana'
    ? Keypair.generate().publicKey.toBase58()
    : Wallet.createRandom().address;
}

async function createToken(network: TestNetwork, symbol: string): Promise<string> {
  const response = await api.post('/tokens', {
    network,
    name: `Policy ${symbol}`,
    symbol,
    amount: 1000,
  });
  expect(summary(response)).toMatchObject({ status: 200, body: { data: { status: 'confirmed' } } });
  return response.body.data.mint_address;
}

async function setPolicy(policy: Data): Promise<Data> {
  const response = await session.put('/account/policies', policy);
  expect(summary(response)).toMatchObject({ status: 200 });
  return response.body.data;
}

async function operationCount(): Promise<number> {
  const rows = await queryDatabase<{ count: string }>(
    stack.env.DATABASE_URL,
    `SELECT count(*) FROM operations o JOIN api_keys k ON k.account_id = o.account_id
     WHERE k.key_prefix = $1`,
    [apiKeyPrefix],
  );
  return Number(rows[0].count);
}

/** An async mint of supply to the managed wallet, followed until it settles. */
async function mintSettled(network: TestNetwork): Promise<Data> {
  const response = await api.post(
    `/tokens/${tokens[network]}/mint`,
    { network, amount: 1 },
    { prefer: 'respond-async' },
  );
  expect(summary(response)).toMatchObject({ status: 202 });
  return settledOperation(api, response.body.data.operation_id, 60_000);
}

async function auditOf(type: string): Promise<Data[]> {
  const response = await api.get('/account/audit?limit=100');
  expect(summary(response)).toMatchObject({ status: 200 });
  return (response.body.data.entries as Data[]).filter((event) => event.type === type);
}

let apiKeyPrefix: string;

beforeAll(async () => {
  stack = await startServiceStack({ env: { RATE_LIMIT_REQUESTS: '100000' } });
  session = (await registerSession(stack.http.baseUrl, 'policies')).session;
  const issued = await session.post('/account/api-keys', { name: 'policies' });
  apiKeyPrefix = issued.body.data.prefix;
  api = stack.http.with({ 'api-key': issued.body.data.key });
  for (const network of NETWORKS) {
    tokens[network] = await createToken(network, 'POL');
    allowed[network] = newAddress(network);
    stranger[network] = newAddress(network);
  }
});

afterAll(async () => {
  await stack?.stop();
});

it('reads and changes the policies through a session only, naming every problem of a bad body', async () => {
  expectError(await api.get('/account/policies'), 403, 'Forbidden', /session/);
  expectError(await api.put('/account/policies', {}), 403, 'Forbidden', /session/);
  // An api-key sent with the session cookie is refused too: the key does not borrow the session.
  const both = session.with({ 'api-key': 'ak_anything' });
  expectError(await both.put('/account/policies', {}), 403, 'Forbidden');

  expect((await session.get('/account/policies')).body.data).toEqual({});
  const bad = await session.put('/account/policies', {
    max_fee_gwei: { solana: 1, base: 0 },
    allowed_recipients: ['not-an-address'],
  });
  expectError(bad, 400, 'Bad request');
  expect(bad.body.message).toContain('max_fee_gwei.solana');
  expect(bad.body.message).toContain('max_fee_gwei.base');
  expect(bad.body.message).toContain('allowed_recipients[0]');
  expect((await session.get('/account/policies')).body.data).toEqual({});

  const saved = await setPolicy({ max_fee_gwei: { evm: 500 }, allowed_recipients: [] });
  expect(saved).toEqual({ max_fee_gwei: { base: 500 }, allowed_recipients: [] });
  expect((await session.get('/account/policies')).body.data).toEqual(saved);
  expect(await setPolicy({})).toEqual({});
  expect((await auditOf('signing_policy.updated')).length).toBeGreaterThanOrEqual(2);
});

it.each(NETWORKS)(
  'refuses at the API, storing nothing, a write to a recipient or contract not allowed (%s)',
  async (network) => {
    const other = await createToken(network, 'OTH');
    await setPolicy({
      allowed_recipients: [allowed.base, allowed.solana],
      allowed_contracts: [tokens.base, tokens.solana],
    });
    const before = await operationCount();

    const toStranger = await api.post(`/tokens/${tokens[network]}/transfer`, {
      network,
      recipient: stranger[network],
      amount: 1,
    });
    expectError(toStranger, 403, 'Forbidden', /^Signing policy allowed_recipients: /);
    expect(toStranger.body.message).toContain(stranger[network]);

    const otherContract = await api.post(`/tokens/${other}/mint`, { network, amount: 1 });
    expectError(otherContract, 403, 'Forbidden', /^Signing policy allowed_contracts: /);

    const airdrop = await api.post(`/tokens/${tokens[network]}/airdrop`, {
      network,
      recipients: [
        { recipient: allowed[network], amount: 1 },
        { recipient: stranger[network], amount: 1 },
      ],
    });
    expectError(airdrop, 403, 'Forbidden', /allowed_recipients: recipients\[1\]: /);
    expect(airdrop.body.message).not.toContain('recipients[0]');
    expect(await operationCount()).toBe(before);

    // Within the lists (and to the wallet itself, always allowed) writes go through.
    const toAllowed = await api.post(`/tokens/${tokens[network]}/transfer`, {
      network,
      recipient: allowed[network],
      amount: 1,
    });
    expect(summary(toAllowed)).toMatchObject({
      status: 200,
      body: { data: { status: 'confirmed' } },
    });
    expect((await mintSettled(network)).status).toBe('confirmed');

    const refusals = (await auditOf('signing_policy.violated')).filter(
      (event) => event.details.network === network && event.details.stage === 'api',
    );
    expect(refusals.map((event) => event.details.rule)).toEqual(
      expect.arrayContaining(['allowed_recipients', 'allowed_contracts']),
    );
    await setPolicy({});
  },
);

it.each(NETWORKS)(
  "fails in the worker, unsigned, what passes the day's native cap, and refuses at the API once it is spent (%s)",
  async (network) => {
    // Less than any transaction's fee: the API cannot tell, the worker's count can.
    await setPolicy({
      daily_native_cap: { [network]: network === 'solana' ? '0.000001' : '0.000000001' },
    });
    const refused = await mintSettled(network);
    expect(refused).toMatchObject({
      status: 'failed',
      tx: null,
      error: {
        error: 'Forbidden',
        message: expect.stringMatching(/^Signing policy daily_native_cap: /),
      },
    });
    const audited = (await auditOf('signing_policy.violated')).find(
      (event) => event.details.operation_id === refused.operation_id,
    );
    expect(audited?.details).toMatchObject({ rule: 'daily_native_cap', network, stage: 'worker' });

    await setPolicy({ daily_native_cap: { [network]: '1' } });
    expect((await mintSettled(network)).status).toBe('confirmed');
    const [spent] = await queryDatabase<{ spent: string }>(
      stack.env.DATABASE_URL,
      `SELECT spent FROM native_spend WHERE network = $1 AND day = (now() AT TIME ZONE 'utc')::date
         AND account_id = (SELECT account_id FROM api_keys WHERE key_prefix = $2)`,
      [network, apiKeyPrefix],
    );
    expect(BigInt(spent.spent)).toBeGreaterThan(0n);

    // A cap now under what was counted today: the API refuses before storing anything.
    await setPolicy({
      daily_native_cap: {
        [network]: network === 'solana' ? '0.000000001' : '0.000000000000000001',
      },
    });
    const spentOut = await api.post(`/tokens/${tokens[network]}/mint`, { network, amount: 1 });
    expectError(spentOut, 403, 'Forbidden', /^Signing policy daily_native_cap: .* is spent/);
    await setPolicy({});
  },
);

it("fails in the worker, unsigned, an EVM write while a gas costs more than the account's ceiling", async () => {
  const rpc = stack.chains.evmRpcUrl;
  const baseFee = async (wei: bigint) => {
    await jsonRpc(rpc, 'anvil_setNextBlockBaseFeePerGas', [`0x${wei.toString(16)}`]);
    await jsonRpc(rpc, 'evm_mine');
    // The service reads fees at most every 2 s (FEE_CACHE_MS).
    await new Promise((resolve) => setTimeout(resolve, 2_100));
  };
  await setPolicy({ max_fee_gwei: { base: 20 } });
  await baseFee(60n * GWEI);
  try {
    const refused = await mintSettled('base');
    expect(refused).toMatchObject({
      status: 'failed',
      tx: null,
      error: {
        error: 'Forbidden',
        message: expect.stringMatching(/^Signing policy max_fee_gwei: a gas costs 6\d\.?\d* gwei/),
      },
    });
  } finally {
    await baseFee(GWEI);
  }
  // Under the ceiling again: signed within it, and mined.
  const landed = await mintSettled('base');
  expect(landed.status).toBe('confirmed');
  const [row] = await queryDatabase<{ fees: Record<string, string> }>(
    stack.env.DATABASE_URL,
    `SELECT t.fees FROM transactions t JOIN operations o ON o.tx_hash = t.tx_hash WHERE o.id = $1`,
    [landed.operation_id],
  );
  expect(BigInt(row.fees.maxFeePerGas ?? row.fees.gasPrice)).toBeLessThanOrEqual(20n * GWEI);
  await setPolicy({});
});
