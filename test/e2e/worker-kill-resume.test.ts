import { CHECK_ROUND_MS } from '@app/domain';
import type { JsonRpcProvider } from 'ethers';
import { collectionAt, evmReader } from '@test/support/chain-reads';
import type { HttpClient } from '@test/support/http-client';
import { createBaseCollection, mintAsync } from '@test/support/nft-requests';
import { waitForExit, waitForStatus } from '@test/support/operation-polling';
import type { ServiceProcess } from '@test/support/service-process';
import {
  newAccountClient,
  startServiceStack,
  type ServiceStack,
} from '@test/support/service-stack';

jest.setTimeout(180_000);

/** Far longer than the lease: what a killed worker's jobs would wait for without the fix. */
const JOB_LOCK_MS = 60_000;
const LEASE_TTL_MS = 3_000;

/**
 * A SIGKILLed worker's running jobs resume within the lease time, not after the job lock: the
 * worker that takes the dead one's shards puts the jobs it left active back to wait before it
 * consumes them (they would otherwise stay locked for JOB_LOCK_MS, then wait for a stalled-jobs
 * check). Each still lands once.
 */
describe('a killed worker', () => {
  let stack: ServiceStack;
  let provider: JsonRpcProvider;
  let api: HttpClient;
  let collection: string;

  beforeAll(async () => {
    stack = await startServiceStack({
      env: {
        JOB_LOCK_MS: String(JOB_LOCK_MS),
        LEASE_TTL_MS: String(LEASE_TTL_MS),
        RATE_LIMIT_REQUESTS: '100000',
      },
    });
    provider = evmReader(stack.chains.evmRpcUrl);
    ({ api } = await newAccountClient(stack.http));
    collection = await createBaseCollection(api, 'Killed', 'Jobs of a killed worker');
  });

  afterAll(async () => {
    provider?.destroy();
    await stack?.stop();
  });

  const minted = async () =>
    (await collectionAt(provider, collection).getFunction('totalMinted')()) as bigint;

  /** Four mints sent while nothing is mined: each waits for its receipt. */
  async function unminedMints(name: string): Promise<string[]> {
    await provider.send('evm_setAutomine', [false]);
    await provider.send('evm_setIntervalMining', [0]);
    const ids = await Promise.all(
      Array.from({ length: 4 }, (_, index) => mintAsync(api, collection, `${name} ${index}`)),
    );
    for (const id of ids) await waitForStatus(stack.services.databaseUrl, id, 'submitted');
    return ids;
  }

  /** SIGKILLs the worker, then lets the chain mine what waits. */
  async function kill(worker: ServiceProcess): Promise<void> {
    stack.workers.splice(stack.workers.indexOf(worker), 1);
    worker.process.kill('SIGKILL');
    await waitForExit(worker);
    await provider.send('evm_setAutomine', [true]);
    await provider.send('evm_mine', []);
  }

  it('leaves no job waiting for its lock: they resume within the lease time and land once', async () => {
    const before = await minted();
    const ids = await unminedMints('orphan');
    await kill(stack.workers[0]);

    const restartedAt = Date.now();
    const successor = await stack.startWorker();
    for (const id of ids) await waitForStatus(stack.services.databaseUrl, id, 'confirmed', 30_000);
    const resumedAfter = Date.now() - restartedAt;
    // The dead worker's leases lapse within LEASE_TTL_MS; its jobs' locks would last 60 s.
    expect(resumedAfter).toBeLessThan(LEASE_TTL_MS * 4);
    expect(successor.output()).toMatch(/Took back \d+ job\(s\) a dead worker left running/);
    expect(await minted()).toBe(before + BigInt(ids.length));
  });

  it("resumes a dead replica's parked checks at once: their wakes died with it", async () => {
    const replica = { WORKER_REPLICA: 'kill-resume' };
    await stack.stopWorkers();
    const first = await stack.startWorker(replica);
    const before = await minted();
    const ids = await unminedMints('parked');
    // Past their first round: parked for seconds, to be woken by this worker's block scan.
    await new Promise((resolve) => setTimeout(resolve, CHECK_ROUND_MS + 300));
    await kill(first);

    await stack.startWorker(replica);
    const readyAt = Date.now();
    for (const id of ids) await waitForStatus(stack.services.databaseUrl, id, 'confirmed', 30_000);
    // Its predecessor's shards at once (the replica's name), its parked jobs promoted: not the
    // lease time, nor the rest of their 5 s park.
    expect(Date.now() - readyAt).toBeLessThan(3_000);
    expect(await minted()).toBe(before + BigInt(ids.length));
  });
});
