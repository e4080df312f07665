import type { OperationEntity } from '@app/database';
import { readSettledMessage, settledMessage, settlementOf } from './settlement';

const failedMint = {
  id: '7d1c6a4e-8a51-4a7e-9a8f-0d7f3c9a1b2c',
  kind: 'nft.mint',
  network: 'base',
  status: 'failed',
  intent: {
    kind: 'nft.mint',
    collection: '0xc0ffee',
    recipient: '0xa11ce',
    name: 'Item',
    metadataUri: 'https://example.com/1',
  },
  details: {},
  result: null,
  signer: '0x0wner',
  txHash: '0xhash',
  signedTx: null,
  errorCode: 'CONFLICT',
  errorMessage: 'The collection has reached its max supply.',
  createdAt: new Date('2026-11-22T00:00:00.000Z'),
} as unknown as OperationEntity;

describe('settlement messages', () => {
  it('carry the view and the failure from the worker to the waiting API instance', () => {
    const settlement = settlementOf(failedMint);
    expect(settlement).toMatchObject({
      status: 'failed',
      view: { operation_id: failedMint.id, status: 'failed', tx: '0xhash', token_id: null },
      error: { code: 'CONFLICT', message: 'The collection has reached its max supply.' },
    });
    expect(readSettledMessage(settledMessage(failedMint.id, settlement))).toEqual({
      id: failedMint.id,
      settlement,
    });
  });

  it('may carry the id alone, and are ignored when unreadable', () => {
    expect(readSettledMessage(settledMessage(failedMint.id))).toEqual({
      id: failedMint.id,
      settlement: undefined,
    });
    expect(readSettledMessage('not json')).toBeNull();
    expect(readSettledMessage('{"settlement":{}}')).toBeNull();
  });
});
