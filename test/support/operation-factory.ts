import { randomUUID } from 'node:crypto';
import type { AssetIntent } from '@app/common';
import type { OperationEntity } from '@app/database';

/**
 * An operation row for repository tests: a fresh id, the intent's kind, nothing signed or
 * settled yet; `overrides` sets what the test is about.
 */
export function newOperationEntity(
  accountId: string,
  intent: AssetIntent,
  overrides: Partial<OperationEntity> = {},
): OperationEntity {
  const now = new Date();
  return {
    id: randomUUID(),
    accountId,
    kind: intent.kind,
    network: 'base',
    chainKey: 'evm:31337',
    status: 'queued',
    intent,
    details: {},
    metadataId: null,
    signer: '0xowner',
    nonce: null,
    signedTx: null,
    txHash: null,
    result: null,
    errorCode: null,
    errorMessage: null,
    attempts: 0,
    lastError: null,
    retryingSince: null,
    createdAt: now,
    updatedAt: now,
    settledAt: null,
    ...overrides,
  };
}
