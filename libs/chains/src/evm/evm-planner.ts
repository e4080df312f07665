import {
  Interface,
  ZeroAddress,
  isCallException,
  concat,
  zeroPadValue,
  type JsonRpcProvider,
  type TransactionReceipt,
} from 'ethers';
import { AppError, type AssetIntent, type AssetOutcome } from '@app/common';
import { assetCollectionArtifact, assetTokenArtifact } from './contracts/artifacts';
import { revertToAppError } from './evm-revert';

const token = new Interface(assetTokenArtifact.abi);
const collection = new Interface(assetCollectionArtifact.abi);

/** A contract call (or a deployment, without `to`) ready to be priced, signed and sent. */
export interface EvmCall {
  to: string | null;
  data: string;
  gasLimit: bigint;
}

const GAS_HEADROOM_PERCENT = 120n;

/**
 * Turns an intent into a call of our contracts. Gas estimation runs the call against the chain,
 * so a revert (not the owner, balance too low, max supply, burned token) is known, and mapped to
 * the client's error, before anything is signed or sent.
 */
export async function planEvmCall(
  provider: JsonRpcProvider,
  signer: string,
  intent: AssetIntent,
): Promise<EvmCall> {
  const { to, data } = encode(signer, intent);
  try {
    const estimate = await provider.estimateGas({ from: signer, to, data });
    return { to, data, gasLimit: (estimate * GAS_HEADROOM_PERCENT) / 100n };
  } catch (error) {
    if (lacksMintWithRoyalty(intent, error)) {
      throw AppError.conflict(
        'This collection was deployed before items could have a royalty of their own; ' +
          "mint without seller_fee (the item then has the collection's).",
      );
    }
    const mapped = revertToAppError(error);
    if (mapped) throw mapped;
    throw error;
  }
}

/**
 * A revert without data on `mintWithRoyalty`: the collection's bytecode predates the function
 * (every path of the function itself reverts with a custom error), so the call hit no selector.
 */
function lacksMintWithRoyalty(intent: AssetIntent, error: unknown): boolean {
  return (
    intent.kind === 'nft.mint' &&
    intent.sellerFeeBps !== undefined &&
    isCallException(error) &&
    (!error.data || error.data === '0x')
  );
}

function encode(signer: string, intent: AssetIntent): { to: string | null; data: string } {
  switch (intent.kind) {
    case 'token.create':
      return {
        to: null,
        data: concat([
          assetTokenArtifact.bytecode,
          token.encodeDeploy([
            intent.name,
            intent.symbol,
            intent.decimals,
            BigInt(intent.initialSupply),
            signer,
          ]),
        ]),
      };
    case 'token.mint':
      return {
        to: intent.asset,
        data: token.encodeFunctionData('mint', [intent.recipient, BigInt(intent.amount)]),
      };
    case 'token.burn':
      return { to: intent.asset, data: token.encodeFunctionData('burn', [BigInt(intent.amount)]) };
    case 'token.transfer':
      return {
        to: intent.asset,
        data: token.encodeFunctionData('transfer', [intent.recipient, BigInt(intent.amount)]),
      };
    case 'nft.create':
      return {
        to: null,
        data: concat([
          assetCollectionArtifact.bytecode,
          collection.encodeDeploy([
            intent.name,
            intent.symbol,
            intent.metadataUri,
            BigInt(intent.maxSupply),
            intent.sellerFeeBps > 0 ? signer : ZeroAddress,
            intent.sellerFeeBps,
            signer,
          ]),
        ]),
      };
    case 'nft.mint':
      return {
        to: intent.collection,
        // Without a fee of its own the item keeps the collection's default royalty on chain.
        data:
          intent.sellerFeeBps === undefined
            ? collection.encodeFunctionData('mint', [intent.recipient, intent.metadataUri])
            : collection.encodeFunctionData('mintWithRoyalty', [
                intent.recipient,
                intent.metadataUri,
                signer,
                intent.sellerFeeBps,
              ]),
      };
    case 'nft.transfer':
      return {
        to: intent.collection,
        data: collection.encodeFunctionData('transferFrom', [
          signer,
          intent.recipient,
          BigInt(intent.tokenId),
        ]),
      };
    case 'nft.burn':
      return {
        to: intent.collection,
        data: collection.encodeFunctionData('burn', [BigInt(intent.tokenId)]),
      };
    case 'token.mintBatch':
    case 'nft.mintBatch':
      throw new Error(`${intent.kind}: not encoded yet`); // TODO(airdrops)
  }
}

/** What a successful receipt tells that the request could not: new addresses and token ids. */
export function evmOutcome(intent: AssetIntent, receipt: TransactionReceipt): AssetOutcome {
  switch (intent.kind) {
    case 'token.create':
    case 'nft.create':
      if (!receipt.contractAddress)
        throw new Error('Deployment receipt without a contract address');
      return { mintAddress: receipt.contractAddress };
    case 'nft.mint': {
      const tokenId = mintedTokenId(intent.collection, receipt);
      if (tokenId === null) throw new Error('Mint receipt without a Transfer event');
      return { mintAddress: intent.collection, tokenId };
    }
    case 'token.mint':
    case 'token.burn':
    case 'token.transfer':
    case 'nft.transfer':
    case 'nft.burn':
      return {};
    case 'token.mintBatch':
    case 'nft.mintBatch':
      throw new Error(`${intent.kind}: no outcome yet`); // TODO(airdrops)
  }
}

const TRANSFER_TOPIC = collection.getEvent('Transfer')!.topicHash;
const FROM_NOBODY = zeroPadValue(ZeroAddress, 32);

/**
 * The id in the collection's ERC-721 `Transfer(0x0, to, tokenId)`: all three arguments are
 * indexed, so the topics say it all, no ABI decoding needed.
 */
function mintedTokenId(collectionAddress: string, receipt: TransactionReceipt): string | null {
  const emitter = collectionAddress.toLowerCase();
  for (const log of receipt.logs) {
    const [topic, from, , tokenId] = log.topics;
    if (
      log.address.toLowerCase() === emitter &&
      topic === TRANSFER_TOPIC &&
      from === FROM_NOBODY &&
      tokenId !== undefined
    ) {
      return BigInt(tokenId).toString();
    }
  }
  return null;
}
