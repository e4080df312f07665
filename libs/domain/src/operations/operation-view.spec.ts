import { newQueuedOperation, type OperationEntity } from '@app/database';
import { operationView, outcomeToStore } from './operation-view';

const ITEM_MINT = '9VUQ66JKG37iW7GFyC7SZEdzHv8cFeCXFDL3qQTo8hSc';

function confirmedMint(network: 'solana' | 'base', newMintAddress: string | null): OperationEntity {
  return {
    ...newQueuedOperation({
      id: '5d0f2c7e-3a51-4a7e-9a8f-0d7f3c9a1b2c',
      accountId: 'e0a1c2d3-0000-4000-8000-000000000001',
      network,
      chainKey: `${network}:test`,
      signer: 'payer',
      intent: {
        kind: 'nft.mint',
        collection: 'Collection1111111111111111111111111111111111',
        recipient: 'Recipient111111111111111111111111111111111111',
        name: 'Item',
        metadataUri: 'https://example.com/1',
      },
    }),
    status: 'confirmed',
    txHash: 'sig',
    newMintAddress,
  };
}

describe('outcomeToStore', () => {
  it("leaves out of a Solana item's result the mint its row holds, and the view shows it the same", () => {
    const operation = confirmedMint('solana', ITEM_MINT);
    const outcome = { mintAddress: ITEM_MINT, tokenId: ITEM_MINT };
    const stored = outcomeToStore(operation, outcome);
    expect(stored).toEqual({});
    expect(operationView({ ...operation, result: stored })).toEqual(
      operationView({ ...operation, result: outcome }),
    );
    expect(operationView({ ...operation, result: stored })).toMatchObject({
      mint_address: ITEM_MINT,
      token_id: ITEM_MINT,
    });
  });

  it('stores what the row does not tell: an EVM token id, a mint the row does not hold', () => {
    expect(outcomeToStore(confirmedMint('base', null), { tokenId: '7' })).toEqual({ tokenId: '7' });
    expect(
      outcomeToStore(confirmedMint('solana', null), { mintAddress: ITEM_MINT, tokenId: ITEM_MINT }),
    ).toEqual({ mintAddress: ITEM_MINT, tokenId: ITEM_MINT });
  });
});
