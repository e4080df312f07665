import { Logger } from '@nestjs/common';
import type { AppConfig } from '@app/config';
import type { NetworkDefinition } from '@app/chains';
import type {
  IdempotencyKeyEntity,
  IdempotencyRepository,
  NewOperationRow,
  OperationEntity,
  OperationRepository,
} from '@app/database';
import type { OperationQueue } from '@app/queue';
import type { SigningPolicies } from '../policies/signing-policies';
import { OperationSubmitter, type Submission } from './operation-submitter';

const ACCOUNT = '0195f0e4-0000-7000-8000-000000000001';
const TTL_HOURS = 24;

function mint(amount: string): Submission {
  return {
    accountId: ACCOUNT,
    network: { network: 'base', chainKey: 'evm:8453' } as NetworkDefinition,
    signer: '0x00000000000000000000000000000000000000a1',
    intent: {
      kind: 'token.mint',
      asset: '0x00000000000000000000000000000000000000b1',
      recipient: '0x00000000000000000000000000000000000000c1',
      amount,
    },
  };
}

const fingerprint = (body: unknown) => ({ method: 'POST', path: '/v1/tokens/mint', body });

/**
 * The submitter over in-memory stores that keep the repositories' contract: a key is claimed by
 * the first request unless its entry is older than the window start, and a lost claim writes
 * nothing.
 */
function submitterOver(options: { enqueue?: () => Promise<void> } = {}) {
  const rows = new Map<string, OperationEntity>();
  const keys = new Map<string, IdempotencyKeyEntity>();
  const live = (entry: IdempotencyKeyEntity | undefined, notBefore: Date) =>
    entry && entry.createdAt >= notBefore ? entry : null;
  const operations = {
    insertMany: async (entries: NewOperationRow[]) =>
      entries.map(({ operation, claim }) => {
        if (claim) {
          const at = `${claim.key.accountId}|${claim.key.key}`;
          const notBefore = new Date(claim.key.createdAt.getTime() - claim.retentionMs);
          if (live(keys.get(at), notBefore)) return false;
          keys.set(at, claim.key);
        }
        rows.set(operation.id, operation);
        return true;
      }),
    findById: async (id: string) => rows.get(id) ?? null,
  };
  const idempotency = {
    find: async (accountId: string, key: string, notBefore: Date) =>
      live(keys.get(`${accountId}|${key}`), notBefore),
  };
  const queue = { enqueue: jest.fn(options.enqueue ?? (async () => undefined)) };
  const config = { operations: { idempotencyTtlHours: TTL_HOURS } } as AppConfig;
  const submitter = new OperationSubmitter(
    config,
    operations as unknown as OperationRepository,
    idempotency as unknown as IdempotencyRepository,
    queue as unknown as OperationQueue,
    { admit: async () => undefined } as unknown as SigningPolicies,
  );
  return { submitter, rows, keys, operations, queue };
}

describe('OperationSubmitter', () => {
  beforeAll(() => Logger.overrideLogger(false));

  it('writes and enqueues a request without a key', async () => {
    const { submitter, rows, queue } = submitterOver();
    const first = await submitter.submit(mint('5'));
    const second = await submitter.submit(mint('5'));
    expect(first).toMatchObject({ replayed: false, enqueued: true });
    expect(second.operation.id).not.toBe(first.operation.id);
    expect(rows.size).toBe(2);
    expect(queue.enqueue).toHaveBeenCalledTimes(2);
  });

  it("answers the same key and request with the first request's operation, writing nothing", async () => {
    const { submitter, rows, queue } = submitterOver();
    const key = { key: 'k-1', fingerprint: fingerprint({ amount: '5', to: 'c1' }) };
    const first = await submitter.submit(mint('5'), key);
    const again = await submitter.submit(mint('5'), {
      key: 'k-1',
      fingerprint: fingerprint({ to: 'c1', amount: '5' }), // keys in another order
    });
    expect(first).toMatchObject({ replayed: false, enqueued: true });
    expect(again).toEqual({ operation: first.operation, replayed: true, enqueued: true });
    expect(rows.size).toBe(1);
    expect(queue.enqueue).toHaveBeenCalledTimes(1);
  });

  it('refuses the same key with another request: 409, nothing written', async () => {
    const { submitter, rows, queue } = submitterOver();
    await submitter.submit(mint('5'), { key: 'k-1', fingerprint: fingerprint({ amount: '5' }) });
    await expect(
      submitter.submit(mint('6'), { key: 'k-1', fingerprint: fingerprint({ amount: '6' }) }),
    ).rejects.toMatchObject({
      code: 'CONFLICT',
      message: 'This Idempotency-Key was used with a different request.',
    });
    expect(rows.size).toBe(1);
    expect(queue.enqueue).toHaveBeenCalledTimes(1);
  });

  it('treats another key as another request', async () => {
    const { submitter, rows } = submitterOver();
    const body = fingerprint({ amount: '5' });
    const first = await submitter.submit(mint('5'), { key: 'k-1', fingerprint: body });
    const second = await submitter.submit(mint('5'), { key: 'k-2', fingerprint: body });
    expect(second).toMatchObject({ replayed: false });
    expect(second.operation.id).not.toBe(first.operation.id);
    expect(rows.size).toBe(2);
  });

  it('holds a key through the retention window: an hour-old first request is replayed', async () => {
    const { submitter, keys, rows } = submitterOver();
    const body = fingerprint({ amount: '5' });
    const first = await submitter.submit(mint('5'), { key: 'k-1', fingerprint: body });
    const entry = keys.get(`${ACCOUNT}|k-1`)!;
    entry.createdAt = new Date(entry.createdAt.getTime() - 3600_000);
    const again = await submitter.submit(mint('5'), { key: 'k-1', fingerprint: body });
    expect(again).toMatchObject({ operation: first.operation, replayed: true });
    expect(rows.size).toBe(1);
  });

  it('claims a key again once its first request is older than the retention window', async () => {
    const { submitter, keys, rows } = submitterOver();
    const expired = new Date(Date.UTC(2000, 0, 1));
    keys.set(`${ACCOUNT}|k-1`, {
      accountId: ACCOUNT,
      key: 'k-1',
      requestHash: 'another request',
      operationId: 'op-long-ago',
      createdAt: expired,
    });
    const result = await submitter.submit(mint('5'), {
      key: 'k-1',
      fingerprint: fingerprint({ amount: '5' }),
    });
    expect(result).toMatchObject({ replayed: false, enqueued: true });
    expect(keys.get(`${ACCOUNT}|k-1`)?.operationId).toBe(result.operation.id);
    expect(rows.has(result.operation.id)).toBe(true);
  });

  it('says enqueued: false when Redis did not take the job, the operation kept', async () => {
    const { submitter, rows } = submitterOver({
      enqueue: () => Promise.reject(new Error('Redis down')),
    });
    const result = await submitter.submit(mint('5'), {
      key: 'k-1',
      fingerprint: fingerprint({ amount: '5' }),
    });
    expect(result).toMatchObject({ replayed: false, enqueued: false });
    expect(rows.has(result.operation.id)).toBe(true);
  });

  it('fails loudly when a key points at an operation that is not there', async () => {
    const { submitter, rows } = submitterOver();
    const key = { key: 'k-1', fingerprint: fingerprint({ amount: '5' }) };
    const first = await submitter.submit(mint('5'), key);
    rows.delete(first.operation.id);
    await expect(submitter.submit(mint('5'), key)).rejects.toThrow(
      `Idempotency key points at missing operation ${first.operation.id}`,
    );
  });
});
