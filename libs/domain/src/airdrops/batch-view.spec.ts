import type { BatchEntity } from '@app/database';
import { batchView } from './batch-view';

const batch: BatchEntity = {
  id: 'b',
  accountId: 'a',
  kind: 'token.airdrop',
  network: 'base',
  chainKey: 'evm:31337',
  asset: '0xtoken',
  signer: '0xowner',
  total: 3,
  status: 'open',
  createdAt: new Date('2026-01-01T00:00:00Z'),
  completedAt: null,
};

describe('batchView', () => {
  it('is queued until an entry is on its way, then running', () => {
    expect(batchView(batch, { queued: 3, submitted: 0, confirmed: 0, failed: 0 }).status).toBe(
      'queued',
    );
    expect(batchView(batch, { queued: 2, submitted: 1, confirmed: 0, failed: 0 }).status).toBe(
      'running',
    );
  });

  it('says how a closed batch ended, and when', () => {
    const closed = {
      ...batch,
      status: 'completed_with_failures' as const,
      completedAt: new Date('2026-01-01T00:01:00Z'),
    };
    expect(batchView(closed, { queued: 0, submitted: 0, confirmed: 2, failed: 1 })).toEqual({
      batch_id: 'b',
      kind: 'token.airdrop',
      status: 'completed_with_failures',
      network: 'base',
      asset: '0xtoken',
      total: 3,
      counts: { queued: 0, submitted: 0, confirmed: 2, failed: 1 },
      created_at: '2026-01-01T00:00:00.000Z',
      completed_at: '2026-01-01T00:01:00.000Z',
    });
  });
});
