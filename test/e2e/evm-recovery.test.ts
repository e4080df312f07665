import Redis from 'ioredis';
import { collectionAt, evmReader, queryDatabase } from '@test/support/chain-reads';
import type { HttpClient } from '@test/support/http-client';
import { operationRow, waitForExit, waitForStatus } from '@test/support/operation-polling';
import {
  newAccountClient,
  startServiceStack,
  type ServiceStack,
} from '@test/support/service-stack';
import { createBaseCollection, mintAsync } from '@test/support/nft-requests';

jest.setTimeout(300_000);

const FAST_RECOVERY = { JOB_LOCK_MS: '1000', RECONCILE_AFTER_MS: '1500' };

/**
 * Crash and loss: the worker killed at the worst moments, Redis emptied under queued work, the
 * wallet's nonce moved behind the service's back. Each operation still completes exactly once.
 */
describe('EVM recovery', () => {
  let stack: ServiceStack;
  let api: HttpClient;
  let wallet: string;
  let collection: string;

  beforeAll(async () => {
    stack = await startServiceStack({ workers: 1, env: FAST_RECOVERY });
    const client = await newAccountClient(stack.http);
    api = client.api;
    wallet = client.account.wallets.find((w) => w.network === 'evm')!.public_key;
    collection = await createBaseCollection(api, 'Recovery', 'crash tests');
    await stack.stopWorkers();
  });

  afterAll(async () => {
    await stack?.stop();
  });

  const operation = (id: string) => operationRow(stack.services.databaseUrl, id);

  const queueMint = (name: string): Promise<string> => mintAsync(api, collection, name);

  const waitForOperation = (id: string, status: string) =>
    waitForStatus(stack.services.databaseUrl, id, status);

  it.each([
    ['after signing, before broadcast', 'crash-after-sign', 'signed', false],
    ['after broadcast, before confirmation', 'crash-after-broadcast', 'submitted', true],
  ])(
    'completes once when the worker is killed %s',
    async (_, fault, stateAtCrash, landedBeforeRestart) => {
      const provider = evmReader(stack.chains.evmRpcUrl);
      const mintedBefore: bigint = await collectionAt(provider, collection).totalMinted();
      const chainNonceBefore = await provider.getTransactionCount(wallet, 'latest');

      const crashing = await stack.startWorker({ FAULT_INJECTION: fault });
      const id = await queueMint(`crash ${fault}`);
      await waitForExit(crashing);
      expect(crashing.process.signalCode).toBe('SIGKILL');

      const signed = await operation(id);
      expect(signed.status).toBe(stateAtCrash);
      expect(signed.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
      const receipt = await provider.getTransactionReceipt(signed.tx_hash!);
      expect(receipt !== null).toBe(landedBeforeRestart);

      await stack.startWorker();
      const confirmed = await waitForOperation(id, 'confirmed');
      // The same signed bytes were sent (or adopted): same hash, same nonce, one mint.
      expect(confirmed.tx_hash).toBe(signed.tx_hash);
      expect(confirmed.nonce).toBe(signed.nonce);
      expect(await collectionAt(provider, collection).totalMinted()).toBe(mintedBefore + 1n);
      expect(await provider.getTransactionCount(wallet, 'latest')).toBe(chainNonceBefore + 1);
      await stack.stopWorkers();
      provider.destroy();
    },
  );

  it('completes operations whose jobs were lost when Redis was flushed', async () => {
    const provider = evmReader(stack.chains.evmRpcUrl);
    const mintedBefore: bigint = await collectionAt(provider, collection).totalMinted();
    const ids = await Promise.all(Array.from({ length: 10 }, (_, i) => queueMint(`lost ${i}`)));

    const redis = new Redis(stack.services.redisUrl);
    const keys = await redis.keys(`${stack.env.QUEUE_PREFIX}:*`);
    expect(keys.length).toBeGreaterThan(0);
    await redis.del(...keys);
    redis.disconnect();

    await stack.startWorker();
    for (const id of ids) await waitForOperation(id, 'confirmed');
    expect(await collectionAt(provider, collection).totalMinted()).toBe(mintedBefore + 10n);
    await stack.stopWorkers();
    provider.destroy();
  });

  it('heals the nonce ledger when the chain moves ahead of it and when it falls behind', async () => {
    const provider = evmReader(stack.chains.evmRpcUrl);
    await stack.startWorker();
    const mint = () =>
      api.post(`/nfts/${collection}/mint`, {
        name: 'drift',
        images: ['https://example.com/d.png'],
      });

    // Ahead: the wallet is used outside the service.
    await provider.send('anvil_impersonateAccount', [wallet]);
    await provider.send('eth_sendTransaction', [{ from: wallet, to: wallet, value: '0x0' }]);
    await provider.send('anvil_stopImpersonatingAccount', [wallet]);
    const ahead = await mint();
    expect(ahead.status).toBe(200);
    expect(ahead.body.data.status).toBe('confirmed');

    // Behind: the chain's nonce is set lower than the ledger's next (nothing in flight).
    const current = await provider.getTransactionCount(wallet, 'latest');
    await provider.send('anvil_setNonce', [wallet, '0x' + (current - 3).toString(16)]);
    const behind = await mint();
    expect(behind.status).toBe(200);
    expect(behind.body.data.status).toBe('confirmed');
    const row = (
      await queryDatabase<{ nonce: string }>(
        stack.services.databaseUrl,
        'SELECT nonce FROM operations WHERE id = $1',
        [behind.body.data.operation_id],
      )
    )[0];
    expect(Number(row.nonce)).toBe(current - 3);
    provider.destroy();
  });
});
