import { newQueuedOperation, type OperationEntity } from '@app/database';
import { operationView, type AccountEventView } from '@app/domain';
import type { WebhookDeliveryWithAttempts } from '@app/domain';
import { presentOperationDetail } from './operation-detail.presenter';

const created = new Date('2026-03-01T10:00:00.000Z');

function tokenCreate(overrides: Partial<OperationEntity> = {}): OperationEntity {
  const operation = newQueuedOperation(
    {
      id: '5b6c7d8e-9f0a-4b1c-8d2e-3f4a5b6c7d8e',
      accountId: 'a1f7a0c2-3d4e-4b5f-8a6b-7c8d9e0f1a2b',
      network: 'base',
      chainKey: 'evm:31337',
      signer: '0xowner',
      intent: {
        kind: 'token.create',
        name: 'Gold',
        symbol: 'GLD',
        decimals: 18,
        initialSupply: '1000',
        metadataUri: 'https://meta.example.com/gld.json',
      },
      details: { amount: '1000', attributes: [{ traitType: 'kept as sent' }] },
    },
    created,
  );
  return { ...operation, ...overrides };
}

const signed = (txHash: string, at: string) => ({
  txHash,
  nonce: '7',
  lastValidBlockHeight: null,
  fees: { maxFeePerGas: '100' },
  createdAt: new Date(at),
});

describe('operation detail presenter', () => {
  it('shows the operation, its request under API names and its times, in order', () => {
    const operation = tokenCreate({ updatedAt: new Date('2026-03-01T10:00:05.000Z') });
    const view = presentOperationDetail({
      operation,
      transactions: [],
      events: [],
      deliveries: [],
      updatedAt: operation.updatedAt,
    });
    expect(Object.keys(view)).toEqual([
      'operation',
      'request',
      'transactions',
      'events',
      'deliveries',
      'updated_at',
      'settled_at',
    ]);
    expect(view.operation).toEqual(operationView(operation));
    // Top-level keys only: the client's own data (attributes) stays as it was sent.
    expect(view.request).toEqual({
      intent: {
        kind: 'token.create',
        name: 'Gold',
        symbol: 'GLD',
        decimals: 18,
        initial_supply: '1000',
        metadata_uri: 'https://meta.example.com/gld.json',
      },
      details: { amount: '1000', attributes: [{ traitType: 'kept as sent' }] },
    });
    expect(view.updated_at).toBe('2026-03-01T10:00:05.000Z');
    expect(view.settled_at).toBeNull();
  });

  it('marks as landed only the version a confirmed operation carries', () => {
    const transactions = [
      signed('0xfirst', '2026-03-01T10:00:01.000Z'),
      signed('0xbumped', '2026-03-01T10:00:03.000Z'),
    ];
    const confirmed = tokenCreate({
      status: 'confirmed',
      txHash: '0xbumped',
      settledAt: new Date('2026-03-01T10:00:09.000Z'),
    });
    const view = presentOperationDetail({
      operation: confirmed,
      transactions,
      events: [],
      deliveries: [],
      updatedAt: confirmed.updatedAt,
    });
    expect(view.transactions).toEqual([
      {
        tx: '0xfirst',
        nonce: '7',
        last_valid_block_height: null,
        fees: { maxFeePerGas: '100' },
        signed_at: '2026-03-01T10:00:01.000Z',
        landed: false,
      },
      {
        tx: '0xbumped',
        nonce: '7',
        last_valid_block_height: null,
        fees: { maxFeePerGas: '100' },
        signed_at: '2026-03-01T10:00:03.000Z',
        landed: true,
      },
    ]);
    expect(view.settled_at).toBe('2026-03-01T10:00:09.000Z');
    // Submitted, not confirmed yet: no version has landed.
    const submitted = presentOperationDetail({
      operation: tokenCreate({ status: 'submitted', txHash: '0xbumped' }),
      transactions,
      events: [],
      deliveries: [],
      updatedAt: new Date(),
    });
    expect(submitted.transactions.map((t) => t.landed)).toEqual([false, false]);
  });

  it('passes the events through as the feed shows them, and presents the deliveries', () => {
    const event: AccountEventView = {
      id: '9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b',
      sequence: 3,
      type: 'operation.confirmed',
      created_at: '2026-03-01T10:00:09.000Z',
      data: { operation_id: 'x' },
    };
    const delivery: WebhookDeliveryWithAttempts = {
      id: '7d1e2f3a-4b5c-4d6e-8f7a-9b0c1d2e3f4a',
      endpointId: '3c9a0e5e-1b2f-4c3d-8e4f-5a6b7c8d9e0f',
      eventId: event.id,
      eventSeq: '3',
      eventType: 'operation.confirmed',
      status: 'succeeded',
      attempts: 1,
      nextAttemptAt: new Date('2026-03-01T10:00:10.000Z'),
      firstAttemptAt: new Date('2026-03-01T10:00:10.000Z'),
      lastAttemptAt: new Date('2026-03-01T10:00:10.000Z'),
      lastResponseStatus: 200,
      lastLatencyMs: 12,
      lastError: null,
      createdAt: new Date('2026-03-01T10:00:09.000Z'),
      attemptLog: [],
    };
    const view = presentOperationDetail({
      operation: tokenCreate(),
      transactions: [],
      events: [event],
      deliveries: [delivery],
      updatedAt: new Date(),
    });
    expect(view.events).toEqual([event]);
    expect(view.deliveries).toMatchObject([
      { id: delivery.id, event_id: event.id, event_sequence: 3, next_attempt_at: null },
    ]);
  });
});
