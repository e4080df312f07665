import { randomUUID } from 'node:crypto';
import { Connection, PublicKey } from '@solana/web3.js';
import { TOKEN_2022_PROGRAM_ID, getMint } from '@solana/spl-token';
import { Contract } from 'ethers';
import { assetTokenArtifact } from '@app/chains';
import { evmReader, queryDatabase } from '@test/support/chain-reads';
import {
  ISO_MS,
  operationUntil,
  settledOperation,
  summary,
  type Data,
} from '@test/support/envelope-assertions';
import type { HttpClient } from '@test/support/http-client';
import { operationRow } from '@test/support/operation-polling';
import {
  newAccountClient,
  startServiceStack,
  type ServiceStack,
} from '@test/support/service-stack';

jest.setTimeout(180_000);

type Network = 'base' | 'solana';
const NETWORKS: Network[] = ['base', 'solana'];
/** Base units one past what each chain's amount can hold: uint256 on EVM, u64 on Solana. */
const UNENCODABLE: Record<Network, string> = {
  base: (2n ** 256n).toString(),
  solana: (2n ** 64n).toString(),
};
const MAX_LOG_LINE = 2_048;

interface RetryColumns {
  status: string;
  tx_hash: string | null;
  signed_tx: string | null;
  attempts: number;
  last_error: string | null;
}

/**
 * Every operation ends: one that can never be encoded fails at once with a short error; one
 * that keeps meeting a fault fails with "retries exhausted" once past OPERATION_DEADLINE_MS,
 * with nothing sent; and the reconciler does not revive a queued one past its deadline.
 */
describe('every operation ends', () => {
  let stack: ServiceStack;
  let api: HttpClient;
  const tokens: Record<Network, string> = { base: '', solana: '' };
  /** A confirmed mint of each token: the template of the rows written below the API. */
  const mints: Record<Network, string> = { base: '', solana: '' };

  beforeAll(async () => {
    stack = await startServiceStack({
      rpcProxies: true,
      env: { OPERATION_DEADLINE_MS: '3000', SYNC_WAIT_MS: '20000', RPC_TIMEOUT_MS: '1000' },
    });
    ({ api } = await newAccountClient(stack.http));
    for (const network of NETWORKS) {
      const created = await api.post('/tokens', {
        network,
        name: 'Ends',
        symbol: 'END',
        amount: 10,
      });
      expect(summary(created)).toMatchObject({ status: 200 });
      tokens[network] = created.body.data.mint_address;
      const minted = await api.post(`/tokens/${tokens[network]}/mint`, { amount: 1 });
      expect(summary(minted)).toMatchObject({ status: 200 });
      mints[network] = minted.body.data.operation_id;
    }
  });

  afterAll(async () => {
    await stack?.stop();
  });

  /**
   * A new queued copy of a confirmed mint, written straight to Postgres (the API refuses such
   * input): untouched for an hour, so the reconciler enqueues it at once.
   */
  async function queuedCopy(
    network: Network,
    change: { amount?: string; failingSince?: string; lastError?: string } = {},
  ): Promise<string> {
    const id = randomUUID();
    await queryDatabase(
      stack.services.databaseUrl,
      `INSERT INTO operations (id, account_id, kind, network, chain_key, status, intent, details,
         signer, attempts, last_error, retrying_since, created_at, updated_at)
       SELECT $2, account_id, kind, network, chain_key, 'queued',
         CASE WHEN $3::text IS NULL THEN intent ELSE jsonb_set(intent, '{amount}', to_jsonb($3::text)) END,
         details, signer, CASE WHEN $4::interval IS NULL THEN 0 ELSE 4 END, $5,
         now() - $4::interval, now() - interval '1 hour', now() - interval '1 hour'
       FROM operations WHERE id = $1`,
      [
        mints[network],
        id,
        change.amount ?? null,
        change.failingSince ?? null,
        change.lastError ?? null,
      ],
    );
    return id;
  }

  async function supply(network: Network): Promise<bigint> {
    if (network === 'solana') {
      const connection = new Connection(stack.chains.solanaRpcUrl, { commitment: 'confirmed' });
      const mint = new PublicKey(tokens.solana);
      return (await getMint(connection, mint, 'confirmed', TOKEN_2022_PROGRAM_ID)).supply;
    }
    const provider = evmReader(stack.chains.evmRpcUrl);
    try {
      const token = new Contract(tokens.base, assetTokenArtifact.abi, provider);
      return (await token.getFunction('totalSupply')()) as bigint;
    } finally {
      provider.destroy();
    }
  }

  const supplies = async () => Promise.all(NETWORKS.map((network) => supply(network)));

  function workerLines(): string[] {
    return stack.workers[0].output().split('\n');
  }

  it('fails an operation that can never be encoded at once, with a short error', async () => {
    const ids = await Promise.all(
      NETWORKS.map((network) => queuedCopy(network, { amount: UNENCODABLE[network] })),
    );
    const failed = await Promise.all(ids.map((id) => settledOperation(api, id, 30_000)));
    for (const operation of failed) {
      expect(operation).toMatchObject({
        status: 'failed',
        tx: null,
        error: {
          error: 'Bad request',
          message: expect.stringMatching(
            /^Invalid request body\. The transaction could not be encoded: /,
          ),
        },
      });
      expect((operation.error as Data).message.length).toBeLessThan(300);
    }
    for (const id of ids) {
      // At once: no run of it ended in a retry.
      const row = await operationRow<RetryColumns>(stack.services.databaseUrl, id);
      expect(row).toMatchObject({ status: 'failed', attempts: 0, signed_tx: null });
    }
    const longest = Math.max(...workerLines().map((line) => line.length));
    expect(longest).toBeLessThanOrEqual(MAX_LOG_LINE);
  });

  it('does not revive a queued operation past its deadline: the reconciler fails it', async () => {
    const before = await supplies();
    const lastError = 'The base RPC did not answer; try again.';
    const ids = await Promise.all(
      NETWORKS.map((network) => queuedCopy(network, { failingSince: '1 hour', lastError })),
    );
    for (const id of ids) {
      const operation = await settledOperation(api, id, 30_000);
      expect(operation).toMatchObject({
        status: 'failed',
        tx: null,
        error: { error: 'Bad gateway', message: `retries exhausted: ${lastError}` },
      });
    }
    expect(await supplies()).toEqual(before);
  });

  it('fails an operation whose faults outlast the deadline, with its last error, nothing sent', async () => {
    const before = await supplies();
    for (const proxy of stack.rpcProxies) proxy.cut();
    let ids: string[];
    try {
      const accepted = await Promise.all(
        NETWORKS.map((network) =>
          api.post(`/tokens/${tokens[network]}/mint`, { amount: 1 }, { prefer: 'respond-async' }),
        ),
      );
      for (const response of accepted) expect(summary(response)).toMatchObject({ status: 202 });
      ids = accepted.map((response) => response.body.data.operation_id as string);

      // While it is retried, the client sees how often and why.
      const retrying = await operationUntil(api, ids[0], (op) => op.retries !== undefined);
      expect(retrying).toMatchObject({
        status: 'queued',
        retries: {
          attempts: expect.any(Number),
          last_error: expect.any(String),
          since: expect.stringMatching(ISO_MS),
        },
      });

      const failed = await Promise.all(ids.map((id) => settledOperation(api, id, 60_000)));
      for (const operation of failed) {
        expect(operation).toMatchObject({
          status: 'failed',
          tx: null,
          error: {
            error: 'Bad gateway',
            message: expect.stringMatching(/^retries exhausted: \S/),
          },
        });
      }
    } finally {
      for (const proxy of stack.rpcProxies) proxy.restore();
    }

    for (const id of ids) {
      const row = await operationRow<RetryColumns>(stack.services.databaseUrl, id);
      expect(row).toMatchObject({ status: 'failed', tx_hash: null, signed_tx: null });
      expect(row.attempts).toBeGreaterThan(1);
      // The client sees the last error, in words without the endpoint's address.
      expect(row.last_error).not.toMatch(/127\.0\.0\.1|localhost|:\d{4,5}/);
      // A long outage is not a warning per attempt: the first few, then debug.
      const warnings = workerLines().filter(
        (line) => line.includes(id) && line.includes('"level":"warn"'),
      );
      expect(warnings.filter((line) => line.includes('Operation will be retried'))).toHaveLength(
        // The run that met the deadline failed the operation instead of announcing a retry.
        Math.min(row.attempts - 1, 3),
      );
    }

    // The RPC is back: nothing of them was sent then, or later.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(await supplies()).toEqual(before);
    for (const id of ids) {
      expect((await operationRow(stack.services.databaseUrl, id)).status).toBe('failed');
    }
    const longest = Math.max(...workerLines().map((line) => line.length));
    expect(longest).toBeLessThanOrEqual(MAX_LOG_LINE);
  });
});
