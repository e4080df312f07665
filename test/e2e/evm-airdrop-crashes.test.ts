import { Contract, Wallet, type JsonRpcProvider } from 'ethers';
import { assetTokenArtifact } from '@app/chains';
import { settledBatch } from '@test/support/airdrops';
import { evmReader } from '@test/support/chain-reads';
import { summary } from '@test/support/envelope-assertions';
import type { HttpClient } from '@test/support/http-client';
import { waitForExit } from '@test/support/operation-polling';
import {
  newAccountClient,
  startServiceStack,
  type ServiceStack,
} from '@test/support/service-stack';

jest.setTimeout(180_000);

/** Far longer than the test: only the takeover of the dead worker's jobs can finish a batch. */
const RECONCILE_AFTER_MS = '600000';

/**
 * A worker killed between storing an airdrop's carrier and queueing its job (while packing, or
 * after splitting a reverted one): the job it never queued is queued by the worker that takes
 * over its jobs, within the lease time, not by the reconciler ten minutes later.
 */
describe('a worker killed between storing a carrier and queueing it', () => {
  let stack: ServiceStack;
  let provider: JsonRpcProvider;
  let api: HttpClient;

  beforeAll(async () => {
    stack = await startServiceStack({
      workers: 0,
      env: {
        // About 25 token mints a carrier: several carriers to an airdrop.
        AIRDROP_BLOCK_GAS_PERCENT: '2',
        LEASE_TTL_MS: '2000',
        RECONCILE_AFTER_MS,
        RATE_LIMIT_REQUESTS: '100000',
      },
    });
    provider = evmReader(stack.chains.evmRpcUrl);
    ({ api } = await newAccountClient(stack.http));
  });

  afterEach(() => stack.stopWorkers());

  afterAll(async () => {
    provider?.destroy();
    await stack?.stop();
  });

  async function newToken(): Promise<Contract> {
    await stack.startWorker();
    const response = await api.post('/tokens', {
      network: 'base',
      name: 'Crash',
      symbol: 'CRS',
      amount: 1,
      decimals: 0,
    });
    expect(summary(response)).toMatchObject({ status: 200 });
    await stack.stopWorkers();
    return new Contract(response.body.data.mint_address, assetTokenArtifact.abi, provider);
  }

  /** Posts the airdrop to a worker that dies at `fault`, then lets a new worker finish it. */
  async function crashThrough(fault: string, token: Contract, amounts: string[]) {
    const crashing = await stack.startWorker({ FAULT_INJECTION: fault });
    const to = amounts.map(() => Wallet.createRandom().address);
    const response = await api.post(`/tokens/${await token.getAddress()}/airdrop`, {
      recipients: to.map((recipient, i) => ({ recipient, amount: amounts[i] })),
    });
    expect(summary(response)).toMatchObject({ status: 202 });
    await waitForExit(crashing);
    // Killed at the fault (its last log line may not have been written out).
    expect(crashing.process.signalCode).toBe('SIGKILL');
    stack.workers.splice(stack.workers.indexOf(crashing), 1);

    await stack.startWorker();
    const batch = await settledBatch(api, response.body.data.batch_id, 60_000);
    const balances = await Promise.all(
      to.map(
        (recipient) => token.getFunction('balanceOf').staticCall(recipient) as Promise<bigint>,
      ),
    );
    return { batch, balances };
  }

  it('queues the carrier it stored while packing', async () => {
    const token = await newToken();
    const amounts = Array.from({ length: 100 }, (_, i) => String(i + 1));
    const { batch, balances } = await crashThrough('crash-after-pack', token, amounts);
    expect(batch).toMatchObject({ status: 'completed', counts: { confirmed: 100, failed: 0 } });
    expect(balances).toEqual(amounts.map(BigInt));
  });

  it('queues the halves of the carrier it split', async () => {
    const token = await newToken();
    // Two halves of 2^256 overflow the supply together: a carrier holding both reverts.
    const half = (2n ** 255n).toString();
    const amounts = Array.from({ length: 20 }, (_, i) => (i === 3 || i === 15 ? half : '1'));
    const { batch, balances } = await crashThrough('crash-after-split', token, amounts);
    expect(batch).toMatchObject({
      status: 'completed_with_failures',
      counts: { confirmed: 19, failed: 1 },
    });
    const missing = balances.map((balance, i) => (balance === 0n ? i : -1)).filter((i) => i >= 0);
    expect(missing).toHaveLength(1);
    expect([3, 15]).toContain(missing[0]);
  });
});
