import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { JsonRpcProvider } from 'ethers';
import { loadConfig } from '@app/config';
import { createDataSource } from '@app/database';
import { OperationRunner } from '@app/domain';
import { WorkerModule } from '../../apps/worker/src/worker.module';
import {
  newAccountClient,
  startServiceStack,
  type ServiceStack,
} from '@test/support/service-stack';

jest.setTimeout(120_000);

/**
 * Exactly once when one operation is run twice at the same time in one worker, as happens when
 * its job is taken again while its first run still waits (a job lock that lapsed under load, a
 * Redis flush re-enqueueing it): both runs reach the wallet's send batch together, and the
 * batch must sign and send it once. The worker's use cases run in this process, with no queue
 * consumer of the network, so the test decides when each run starts.
 */
describe('an EVM operation run twice at once', () => {
  let stack: ServiceStack;
  let worker: INestApplicationContext;

  beforeAll(async () => {
    stack = await startServiceStack({ workers: 0 });
    const config = loadConfig({
      ...stack.env,
      // This in-process worker consumes another network's queue: the test runs `base` itself.
      WORKER_NETWORKS: 'celo',
      LOG_LEVEL: 'warn',
    });
    worker = await NestFactory.createApplicationContext(WorkerModule.forRoot(config), {
      logger: false,
    });
  });

  afterAll(async () => {
    await worker?.close();
    await stack?.stop();
  });

  it('signs, sends and records one transaction per operation', async () => {
    const { api, account } = await newAccountClient(stack.http);
    const signer = account.wallets.find((wallet) => wallet.network !== 'solana')!.public_key;
    const provider = new JsonRpcProvider(stack.chains.evmRpcUrl, undefined, { cacheTimeout: -1 });
    const sentBefore = await provider.getTransactionCount(signer);
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const accepted = await api.post(
        '/tokens',
        { network: 'base', name: `Twin ${i}`, symbol: 'TWN', amount: '100' },
        { prefer: 'respond-async' },
      );
      expect(accepted.status).toBe(202);
      ids.push(accepted.body.data.operation_id);
    }

    // Each operation twice, all at once: while the wallet's first batch is on its way, the
    // others queue up behind it, twins together in the next batch.
    const runner = worker.get(OperationRunner);
    await Promise.all(ids.flatMap((id) => [runner.run(id), runner.run(id)]));

    const dataSource = await createDataSource(stack.services.databaseUrl).initialize();
    try {
      for (const id of ids) {
        const settled = (await api.get(`/operations/${id}`)).body.data;
        expect(settled.status).toBe('confirmed');
        const signed = await dataSource.query(
          `SELECT tx_hash FROM operation_transactions WHERE operation_id = $1`,
          [id],
        );
        expect(signed).toEqual([{ tx_hash: settled.tx }]);
      }
      // Nothing left the wallet beyond one transaction per operation.
      expect(await provider.getTransactionCount(signer)).toBe(sentBefore + ids.length);
    } finally {
      await dataSource.destroy();
      provider.destroy();
    }
  });
});
