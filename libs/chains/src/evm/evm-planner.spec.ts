import { Interface, ZeroAddress, getAddress, type TransactionReceipt } from 'ethers';
import type { AssetIntent } from '@app/common';
import { assetCollectionArtifact } from './contracts/artifacts';
import { evmOutcome } from './evm-planner';

const abi = new Interface(assetCollectionArtifact.abi);
const COLLECTION = getAddress('0x5fbdb2315678afecb367f032d93f642f64180aa3');
const OTHER = getAddress('0xe7f1725e7734ce288f8367e1bb143e90bb3f0512');
const ALICE = getAddress('0x70997970c51812dc3a010c7d01b50e0d17dc79c8');

function transfer(emitter: string, from: string, tokenId: bigint) {
  const { topics, data } = abi.encodeEventLog('Transfer', [from, ALICE, tokenId]);
  return { address: emitter, topics, data };
}

function receipt(logs: ReturnType<typeof transfer>[]): TransactionReceipt {
  return { logs, contractAddress: null } as unknown as TransactionReceipt;
}

const mint: AssetIntent = {
  kind: 'nft.mint',
  collection: COLLECTION.toLowerCase(),
  recipient: ALICE,
  name: 'Item',
  metadataUri: 'https://example.com/1',
};

describe('evmOutcome of an NFT mint', () => {
  it("reads the token id from the collection's Transfer from the zero address", () => {
    expect(evmOutcome(mint, receipt([transfer(COLLECTION, ZeroAddress, 4242n)]))).toEqual({
      mintAddress: COLLECTION.toLowerCase(),
      tokenId: '4242',
    });
  });

  it('ignores transfers between holders and events of other contracts', () => {
    const logs = [
      transfer(OTHER, ZeroAddress, 1n),
      transfer(COLLECTION, ALICE, 2n),
      transfer(COLLECTION, ZeroAddress, 3n),
    ];
    expect(evmOutcome(mint, receipt(logs)).tokenId).toBe('3');
  });

  it('refuses a receipt without the mint event', () => {
    expect(() => evmOutcome(mint, receipt([transfer(OTHER, ZeroAddress, 1n)]))).toThrow(
      /without a Transfer event/,
    );
  });
});
