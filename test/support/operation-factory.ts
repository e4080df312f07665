import { randomUUID } from 'node:crypto';
import type { AssetIntent } from '@app/common';
import { newQueuedOperation, type OperationEntity } from '@app/database';

/**
 * An operation row for repository tests: a fresh id, queued on `base`, nothing signed or settled
 * yet; `overrides` sets what the test is about.
 */
export function newOperationEntity(
  accountId: string,
  intent: AssetIntent,
  overrides: Partial<OperationEntity> = {},
): OperationEntity {
  const operation = newQueuedOperation({
    id: randomUUID(),
    accountId,
    network: 'base',
    chainKey: 'evm:31337',
    signer: '0xowner',
    intent,
  });
  const shaped = { ...operation, ...overrides };
  // A settled operation carries its settlement time, as the database requires (1767400000000).
  const settled = shaped.status === 'confirmed' || shaped.status === 'failed';
  return settled && !shaped.settledAt ? { ...shaped, settledAt: shaped.updatedAt } : shaped;
}
