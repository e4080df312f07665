import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { queryDatabase } from '@test/support/chain-reads';
import type { HttpClient } from '@test/support/http-client';
import {
  newAccountClient,
  startServiceStack,
  type ServiceStack,
} from '@test/support/service-stack';

jest.setTimeout(180_000);

/**
 * `npm run keys:rotate` while mints run on both chains: the worker rolled to the new master key
 * (MASTER_KEY_ID=k2, k1 kept in MASTER_KEYS), the command run beside it. Every mint confirms, the
 * account's wallets sign after the rotation, and nothing is left sealed under k1.
 */

const ROOT = join(__dirname, '..', '..');
const IMAGE = 'https://example.com/image.png';
const MASTER_KEYS = ['k1', 'k2'].map((id) => `${id}:${randomBytes(32).toString('base64')}`);

let stack: ServiceStack;
let api: HttpClient;

/** Runs `npm run keys:rotate` against the stack's database; its exit code and output. */
function rotateKeys(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      ['-r', '@swc-node/register', 'libs/domain/src/security/keys-rotate.cli.ts'],
      { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('exit', (code) => resolve({ code, output }));
  });
}

async function settled(operationId: string): Promise<string> {
  for (;;) {
    const { body } = await api.get(`/operations/${operationId}`);
    if (['confirmed', 'failed'].includes(body.data.status)) return body.data.status;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function collection(network: string): Promise<string> {
  const response = await api.post('/nfts', {
    network,
    name: `Rotation ${network}`,
    description: 'minted through a master key rotation',
    images: [IMAGE],
  });
  expect(response.body.data?.status).toBe('confirmed');
  return response.body.data.mint_address;
}

const mint = (network: string, asset: string, name: string, async: boolean) =>
  api.post(
    `/nfts/${asset}/mint`,
    { network, name, images: [IMAGE] },
    async ? { prefer: 'respond-async' } : undefined,
  );

beforeAll(async () => {
  stack = await startServiceStack({
    env: { MASTER_KEYS: MASTER_KEYS.join(','), MASTER_KEY_ID: 'k1', RATE_LIMIT_REQUESTS: '100000' },
  });
  api = (await newAccountClient(stack.http)).api;
});

afterAll(async () => {
  await stack?.stop();
});

it('rotates every stored secret to the new key while mints on both chains go on', async () => {
  const assets = { base: await collection('base'), solana: await collection('solana') };
  // Under k1: the account's two wallets. The new mint keypairs of the Solana collection and of
  // its items went with their settlement (migration 1767600000000).
  for (let i = 0; i < 3; i++) {
    expect((await mint('solana', assets.solana, `Before ${i}`, false)).status).toBe(200);
  }
  const usage = () =>
    queryDatabase<{ key_id: string; count: string }>(
      stack.env.DATABASE_URL,
      `SELECT key_id, count(*)::text AS count FROM (
         SELECT secret_key_id AS key_id FROM managed_wallets WHERE secret_key_id IS NOT NULL
         UNION ALL SELECT new_mint_key_id FROM operations WHERE new_mint_secret IS NOT NULL
       ) used GROUP BY key_id ORDER BY key_id`,
    );
  expect(await usage()).toEqual([{ key_id: 'k1', count: '2' }]);

  // Step 1 of a rotation: the worker rolled to MASTER_KEY_ID=k2 (k1 still in MASTER_KEYS).
  await stack.startWorker({ MASTER_KEY_ID: 'k2' });
  await stack.workers.shift()!.stop();

  // Step 2 while mints run on both chains: sent from before the command starts until it ends.
  const accepted: string[] = [];
  let rotating = true;
  const sending = (async () => {
    for (let i = 0; rotating || i < 20; i++) {
      const network = i % 2 ? 'base' : 'solana';
      const response = await mint(network, assets[network], `During ${i}`, true);
      expect(response.status).toBe(202);
      accepted.push(response.body.data.operation_id as string);
    }
  })();
  const rotated = await rotateKeys({ ...stack.env, MASTER_KEY_ID: 'k2' });
  rotating = false;
  await sending;
  expect(rotated.output).toContain('seals nothing any more: it can be retired from MASTER_KEYS');
  expect(rotated.code).toBe(0);
  expect(accepted.length).toBeGreaterThan(20);

  const statuses = await Promise.all(accepted.map(settled));
  expect(statuses.filter((status) => status !== 'confirmed')).toEqual([]);
  // The wallets' keys, wrapped again, still sign.
  for (const network of ['base', 'solana'] as const) {
    expect((await mint(network, assets[network], `After ${network}`, false)).body.data.status).toBe(
      'confirmed',
    );
  }
  const after = await usage();
  expect(after.map((row) => row.key_id)).toEqual(['k2']);

  const audit = await queryDatabase<{ details: Record<string, string> }>(
    stack.env.DATABASE_URL,
    `SELECT details FROM audit_events WHERE type = 'managed_key.rewrapped'`,
  );
  expect(audit.map((row) => row.details)).toEqual([{ from_key_id: 'k1', to_key_id: 'k2' }]);
});
