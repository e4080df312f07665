import { Interface, ZeroAddress, getAddress, makeError, type JsonRpcProvider } from 'ethers';
import type { AssetIntent } from '@app/common';
import { assetCollectionArtifact, assetTokenArtifact } from './contracts/artifacts';
import { evmOutcome, lacksFunction, planEvmCall } from './evm-planner';
import type { EvmReceipt } from './evm-receipt';

const abi = new Interface(assetCollectionArtifact.abi);
const tokenAbi = new Interface(assetTokenArtifact.abi);
const COLLECTION = getAddress('0x5fbdb2315678afecb367f032d93f642f64180aa3');
const OTHER = getAddress('0xe7f1725e7734ce288f8367e1bb143e90bb3f0512');
const ALICE = getAddress('0x70997970c51812dc3a010c7d01b50e0d17dc79c8');
const BOB = getAddress('0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc');
const SIGNER = getAddress('0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266');

function transfer(emitter: string, from: string, tokenId: bigint, to: string = ALICE) {
  const { topics, data } = abi.encodeEventLog('Transfer', [from, to, tokenId]);
  return { address: emitter, topics, data };
}

/** A receipt as the node gives it: log emitters in lower case. */
function receipt(logs: ReturnType<typeof transfer>[]): EvmReceipt {
  return {
    hash: '0x01',
    blockNumber: 1,
    blockHash: '0x02',
    status: 1,
    contractAddress: null,
    logs: logs.map(({ address, topics }) => ({ address: address.toLowerCase(), topics })),
  };
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

describe('evmOutcome of a batch', () => {
  const batch: AssetIntent = {
    kind: 'nft.mintBatch',
    collection: COLLECTION.toLowerCase(),
    recipients: [ALICE, BOB, ALICE],
  };

  it("lists the collection's minted ids per recipient, in log order, among other events", () => {
    const logs = [
      transfer(COLLECTION, ZeroAddress, 7n, ALICE),
      transfer(OTHER, ZeroAddress, 1n, BOB),
      transfer(COLLECTION, ZeroAddress, 8n, BOB),
      transfer(COLLECTION, ALICE, 2n, BOB),
      transfer(COLLECTION, ZeroAddress, 9n, ALICE),
    ];
    const collection = COLLECTION.toLowerCase();
    expect(evmOutcome(batch, receipt(logs))).toEqual({
      mintAddress: collection,
      items: [
        { mintAddress: collection, tokenId: '7' },
        { mintAddress: collection, tokenId: '8' },
        { mintAddress: collection, tokenId: '9' },
      ],
    });
  });

  it('refuses a receipt with fewer or more mints than recipients', () => {
    const two = [
      transfer(COLLECTION, ZeroAddress, 1n, ALICE),
      transfer(COLLECTION, ZeroAddress, 2n, BOB),
    ];
    expect(() => evmOutcome(batch, receipt(two))).toThrow(/2 Transfer events for 3 recipients/);
    const four = [
      ...two,
      transfer(COLLECTION, ZeroAddress, 3n),
      transfer(COLLECTION, ZeroAddress, 4n),
    ];
    expect(() => evmOutcome(batch, receipt(four))).toThrow(/4 Transfer events for 3 recipients/);
  });

  it('refuses a receipt whose mints go to other recipients than asked, in order', () => {
    const swapped = [
      transfer(COLLECTION, ZeroAddress, 1n, BOB),
      transfer(COLLECTION, ZeroAddress, 2n, ALICE),
      transfer(COLLECTION, ZeroAddress, 3n, ALICE),
    ];
    expect(() => evmOutcome(batch, receipt(swapped))).toThrow(/item 1 minted to another address/);
  });

  it('gives one empty item per recipient of a token batch', () => {
    const tokens: AssetIntent = {
      kind: 'token.mintBatch',
      asset: OTHER,
      recipients: [ALICE, BOB],
      amounts: ['1', '2'],
    };
    expect(evmOutcome(tokens, receipt([]))).toEqual({ items: [{}, {}] });
  });
});

/** A provider whose estimate (eth_estimateGas) answers `estimate`, or throws it. */
function providerEstimating(estimate: bigint | Error): JsonRpcProvider {
  const send = jest.fn((method: string) => {
    if (method !== 'eth_estimateGas') return Promise.reject(new Error(`unexpected ${method}`));
    return estimate instanceof Error
      ? Promise.reject(estimate)
      : Promise.resolve(`0x${estimate.toString(16)}`);
  });
  return { send } as unknown as JsonRpcProvider;
}

async function planned(intent: AssetIntent) {
  const provider = providerEstimating(100_000n);
  const call = await planEvmCall(provider, SIGNER, intent);
  expect(call.gasLimit).toBe(120_000n);
  // At the head's state, not anvil's default pending block (every pooled transaction run first).
  expect((provider as unknown as { send: jest.Mock }).send).toHaveBeenCalledWith(
    'eth_estimateGas',
    [expect.objectContaining({ from: SIGNER, data: call.data }), 'latest'],
  );
  return call;
}

describe('planning a batch', () => {
  it('encodes a token batch as mintBatch of recipients and amounts in base units', async () => {
    const call = await planned({
      kind: 'token.mintBatch',
      asset: OTHER,
      recipients: [ALICE, BOB],
      amounts: ['1000000', '123456789012345678901234567890'],
    });
    expect(call.to).toBe(OTHER);
    const parsed = tokenAbi.parseTransaction({ data: call.data });
    expect(parsed?.name).toBe('mintBatch');
    expect(parsed?.args.toArray(true)).toEqual([
      [ALICE, BOB],
      [1_000_000n, 123456789012345678901234567890n],
    ]);
  });

  it('encodes an NFT batch without royalties as mintBatch (the default royalty applies)', async () => {
    const call = await planned({
      kind: 'nft.mintBatch',
      collection: COLLECTION,
      recipients: [ALICE, BOB],
    });
    expect(call.to).toBe(COLLECTION);
    const parsed = abi.parseTransaction({ data: call.data });
    expect(parsed?.name).toBe('mintBatch');
    expect(parsed?.args.toArray(true)).toEqual([[ALICE, BOB]]);
  });

  it('encodes an NFT batch with royalties as mintBatchWithRoyalty, the signer their receiver', async () => {
    const call = await planned({
      kind: 'nft.mintBatch',
      collection: COLLECTION,
      recipients: [ALICE, BOB],
      sellerFeeBps: [250, 0],
    });
    const parsed = abi.parseTransaction({ data: call.data });
    expect(parsed?.name).toBe('mintBatchWithRoyalty');
    expect(parsed?.args.toArray(true)).toEqual([[ALICE, BOB], SIGNER, [250n, 0n]]);
  });
});

describe('planning a collection', () => {
  const create = {
    kind: 'nft.create' as const,
    name: 'Apes',
    symbol: 'APE',
    metadataUri: 'https://example.com/collection',
    maxSupply: '100',
    sellerFeeBps: 500,
  };
  it('deploys with the items base URI, or an empty one for an intent without it', async () => {
    const withBase = await planned({ ...create, itemsBaseUri: 'https://example.com/items/' });
    expect(withBase.to).toBeNull();
    expect(constructorArgs(withBase.data)).toEqual([
      'Apes',
      'APE',
      'https://example.com/collection',
      'https://example.com/items/',
      100n,
      SIGNER,
      500n,
      SIGNER,
    ]);
    expect(constructorArgs((await planned(create)).data)[3]).toBe('');
  });
});

/** The constructor arguments after the init code of a deployment. */
function constructorArgs(data: string): unknown[] {
  const encoded = `0x${data.slice(String(assetCollectionArtifact.bytecode).length)}`;
  return abi.getAbiCoder().decode(abi.deploy.inputs, encoded).toArray(true);
}

describe('lacksFunction', () => {
  const callException = (data: string | null, said: string) =>
    makeError('execution reverted', 'CALL_EXCEPTION', {
      action: 'estimateGas',
      data,
      reason: null,
      transaction: { to: COLLECTION, data: '0x' },
      invocation: null,
      revert: null,
      info: { error: { code: data === null ? -32000 : 3, message: said } },
    });

  it('holds for a revert with empty data (anvil) or none at all (geth)', () => {
    expect(lacksFunction(callException('0x', 'execution reverted'))).toBe(true);
    expect(lacksFunction(callException(null, 'execution reverted'))).toBe(true);
  });

  it("does not hold for a contract's own revert, an estimate over the gas cap, or other errors", () => {
    const maxSupply = abi.encodeErrorResult('MaxSupplyReached', [10n]);
    expect(lacksFunction(callException(maxSupply, 'execution reverted'))).toBe(false);
    const overCap = 'Out of gas: gas required exceeds allowance: 30000000';
    expect(lacksFunction(callException(null, overCap))).toBe(false);
    expect(lacksFunction(new Error('execution reverted'))).toBe(false);
    expect(lacksFunction(undefined)).toBe(false);
  });

  it("leaves a batch's missing function as the node said it, for the worker to fall back", async () => {
    const missing = callException('0x', 'execution reverted');
    const batch: AssetIntent = {
      kind: 'nft.mintBatch',
      collection: COLLECTION,
      recipients: [ALICE],
    };
    await expect(planEvmCall(providerEstimating(missing), SIGNER, batch)).rejects.toBe(missing);
  });

  it('answers a single mint with a royalty on a collection without mintWithRoyalty with 409', async () => {
    const intent: AssetIntent = { ...mint, sellerFeeBps: 250 };
    const missing = callException(null, 'execution reverted');
    await expect(planEvmCall(providerEstimating(missing), SIGNER, intent)).rejects.toMatchObject({
      code: 'CONFLICT',
    });
  });
});
