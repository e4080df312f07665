import { randomUUID } from 'node:crypto';
import type { AssetIntent } from '@app/common';
import { newQueuedOperation, type OperationEntity } from '@app/database';
import { cutIntoCarriers, hasOwnRoyalty, newCarrier } from './carriers';

function member(intent: AssetIntent, index: number): OperationEntity {
  return {
    ...newQueuedOperation({
      id: randomUUID(),
      accountId: 'account',
      network: 'base',
      chainKey: 'evm:31337',
      signer: '0xowner',
      intent,
    }),
    batchId: 'batch',
    batchIndex: index,
    carrierId: null,
  };
}

describe('newCarrier', () => {
  it('mints its members in order: one token mintBatch with their recipients and amounts', () => {
    const members = ['0xa', '0xb'].map((recipient, i) =>
      member({ kind: 'token.mint', asset: '0xtoken', recipient, amount: String(i + 1) }, i),
    );
    const carrier = newCarrier(members, 'carrier');
    expect(carrier).toMatchObject({
      id: 'carrier',
      kind: 'token.mintBatch',
      status: 'queued',
      batchId: 'batch',
      batchIndex: null,
      signer: '0xowner',
      intent: { asset: '0xtoken', recipients: ['0xa', '0xb'], amounts: ['1', '2'] },
    });
  });

  it("carries items' own royalties only when they have them", () => {
    const plain = member(
      { kind: 'nft.mint', collection: '0xc', recipient: '0xa', name: 'A', metadataUri: 'u' },
      0,
    );
    const royal = member(
      {
        kind: 'nft.mint',
        collection: '0xc',
        recipient: '0xb',
        name: 'B',
        metadataUri: 'u',
        sellerFeeBps: 250,
      },
      1,
    );
    expect([plain, royal].map(hasOwnRoyalty)).toEqual([false, true]);
    expect(newCarrier([plain]).intent).toEqual({
      kind: 'nft.mintBatch',
      collection: '0xc',
      recipients: ['0xa'],
    });
    expect(newCarrier([royal]).intent).toEqual({
      kind: 'nft.mintBatch',
      collection: '0xc',
      recipients: ['0xb'],
      sellerFeeBps: [250],
    });
  });
});

describe('cutIntoCarriers', () => {
  const entries = [1, 2, 3, 4, 5, 6, 7];

  it('leaves the entries short of a full carrier for the next page', () => {
    expect(cutIntoCarriers(entries, 3, false)).toEqual({
      carriers: [
        [1, 2, 3],
        [4, 5, 6],
      ],
      leftOver: [7],
    });
  });

  it('carries every entry of the last page, the last carrier smaller', () => {
    expect(cutIntoCarriers(entries, 3, true)).toEqual({
      carriers: [[1, 2, 3], [4, 5, 6], [7]],
      leftOver: [],
    });
  });

  it('leaves a page smaller than one carrier whole for the next', () => {
    expect(cutIntoCarriers([1, 2], 3, false)).toEqual({ carriers: [], leftOver: [1, 2] });
  });
});
