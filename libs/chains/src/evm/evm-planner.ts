import {
  Interface,
  ZeroAddress,
  isCallException,
  concat,
  dataSlice,
  zeroPadValue,
  type FunctionFragment,
  type JsonRpcProvider,
} from 'ethers';
import { AppError, isCarrierIntent, type AssetIntent, type AssetOutcome } from '@app/common';
import { assetCollectionArtifact, assetTokenArtifact } from './contracts/artifacts';
import type { EvmReceipt } from './evm-receipt';
import { revertToAppError } from './evm-revert';

const token = new Interface(assetTokenArtifact.abi);
const collection = new Interface(assetCollectionArtifact.abi);

/**
 * Call data of a contract's functions, each looked up once: ethers' `encodeFunctionData` finds
 * the function by name and hashes its signature for the selector on every call, and parses the
 * parts again to join them (0.03 ms of an EVM mint's worker CPU, 2026-11-29).
 */
class CallData {
  private readonly functions = new Map<string, FunctionFragment>();
  private readonly selectors = new Map<string, string>();

  constructor(private readonly contract: Interface) {}

  of(name: string, values: readonly unknown[]): string {
    let fragment = this.functions.get(name);
    if (!fragment) {
      fragment = this.contract.getFunction(name)!;
      this.functions.set(name, fragment);
      this.selectors.set(name, fragment.selector);
    }
    const encoded = this.contract.getAbiCoder().encode(fragment.inputs, values);
    return this.selectors.get(name)! + encoded.slice(2);
  }
}

const tokenCalls = new CallData(token);
const collectionCalls = new CallData(collection);

/** A contract call (or a deployment, without `to`) ready to be priced, signed and sent. */
export interface EvmCall {
  to: string | null;
  data: string;
  gasLimit: bigint;
}

const GAS_HEADROOM_PERCENT = 120n;
/**
 * Estimates run on the head's state, named rather than left to the node: geth and its forks
 * default to it (go-ethereum PR 24363, 2023), anvil to its pending block, which it builds by
 * running every transaction in its pool first. Under load that tripled an estimate's cost
 * there: 2.9 ms of anvil's CPU with 40 transactions pending against 0.9 ms (`latest`), when
 * anvil shares the machine with the service in every local run and benchmark.
 */
const ESTIMATE_AT = 'latest';

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
    // Raw: ethers' estimateGas checks and copies the request first (a checksummed address is a
    // Keccak hash), 0.06 ms of a mint's worker CPU; a refusal comes back as the same error.
    const request = to === null ? { from: signer, data } : { from: signer, to, data };
    const estimate = BigInt(
      (await provider.send('eth_estimateGas', [request, ESTIMATE_AT])) as string,
    );
    return { to, data, gasLimit: (estimate * GAS_HEADROOM_PERCENT) / 100n };
  } catch (error) {
    // Left as the node said it, so that the worker, asking lacksFunction, falls back to one mint
    // per transaction on a contract deployed before batches; no client asked for the carrier.
    if (isCarrierIntent(intent) && lacksFunction(error)) throw error;
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
 * A call of one of our contracts reverted without data: the contract's bytecode predates the
 * function, so the selector hit nothing (our contracts have no fallback, and every path of their
 * functions reverts with a custom error or a panic, both with data).
 *
 * A node reports such a revert with empty data (anvil) or with none at all (geth). With none,
 * only the node's words tell a revert from an estimate that failed otherwise: "gas required
 * exceeds allowance" (a batch over the gas cap) also comes back as a call exception without data.
 */
export function lacksFunction(error: unknown): boolean {
  if (!isCallException(error)) return false;
  if (error.data === '0x') return true;
  if (error.data) return false;
  const said = (error.info as { error?: { message?: unknown } } | undefined)?.error?.message;
  return typeof said === 'string' && /revert/i.test(said);
}

function lacksMintWithRoyalty(intent: AssetIntent, error: unknown): boolean {
  return intent.kind === 'nft.mint' && intent.sellerFeeBps !== undefined && lacksFunction(error);
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
        data: tokenCalls.of('mint', [intent.recipient, BigInt(intent.amount)]),
      };
    case 'token.burn':
      return { to: intent.asset, data: tokenCalls.of('burn', [BigInt(intent.amount)]) };
    case 'token.transfer':
      return {
        to: intent.asset,
        data: tokenCalls.of('transfer', [intent.recipient, BigInt(intent.amount)]),
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
            // Absent on intents stored before batches: such a collection's items all have URIs.
            intent.itemsBaseUri ?? '',
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
            ? collectionCalls.of('mint', [intent.recipient, intent.metadataUri])
            : collectionCalls.of('mintWithRoyalty', [
                intent.recipient,
                intent.metadataUri,
                signer,
                intent.sellerFeeBps,
              ]),
      };
    case 'nft.transfer':
      return {
        to: intent.collection,
        data: collectionCalls.of('transferFrom', [
          signer,
          intent.recipient,
          BigInt(intent.tokenId),
        ]),
      };
    case 'nft.burn':
      return {
        to: intent.collection,
        data: collectionCalls.of('burn', [BigInt(intent.tokenId)]),
      };
    // Lengths (none empty, all alike) are the contracts' to check: a bad carrier fails on
    // estimation with BatchLengthMismatch or EmptyBatch, before anything is signed.
    case 'token.mintBatch':
      return {
        to: intent.asset,
        data: tokenCalls.of('mintBatch', [
          intent.recipients,
          intent.amounts.map((amount) => BigInt(amount)),
        ]),
      };
    case 'nft.mintBatch':
      return {
        to: intent.collection,
        data:
          intent.sellerFeeBps === undefined
            ? collectionCalls.of('mintBatch', [intent.recipients])
            : collectionCalls.of('mintBatchWithRoyalty', [
                intent.recipients,
                signer,
                intent.sellerFeeBps,
              ]),
      };
  }
}

/** What a successful receipt tells that the request could not: new addresses and token ids. */
export function evmOutcome(intent: AssetIntent, receipt: EvmReceipt): AssetOutcome {
  switch (intent.kind) {
    case 'token.create':
    case 'nft.create':
      if (!receipt.contractAddress)
        throw new Error('Deployment receipt without a contract address');
      return { mintAddress: receipt.contractAddress };
    case 'nft.mint': {
      const [minted] = mintsOf(intent.collection, receipt);
      if (!minted) throw new Error('Mint receipt without a Transfer event');
      return { mintAddress: intent.collection, tokenId: minted.tokenId };
    }
    case 'nft.mintBatch': {
      const minted = mintsOf(intent.collection, receipt);
      const misplaced = minted.findIndex(({ to }, i) => to !== intent.recipients[i]?.toLowerCase());
      if (minted.length !== intent.recipients.length || misplaced !== -1) {
        throw new Error(
          `Batch mint receipt with ${minted.length} Transfer events for ` +
            `${intent.recipients.length} recipients` +
            (misplaced === -1 ? '' : `, item ${misplaced + 1} minted to another address`),
        );
      }
      return {
        mintAddress: intent.collection,
        items: minted.map(({ tokenId }) => ({ mintAddress: intent.collection, tokenId })),
      };
    }
    case 'token.mintBatch':
      // Nothing to learn per item: the outcome only says, in order, that each mint was made.
      return { items: intent.recipients.map(() => ({})) };
    case 'token.mint':
    case 'token.burn':
    case 'token.transfer':
    case 'nft.transfer':
    case 'nft.burn':
      return {};
  }
}

const TRANSFER_TOPIC = collection.getEvent('Transfer')!.topicHash;
const FROM_NOBODY = zeroPadValue(ZeroAddress, 32);

/**
 * The collection's ERC-721 `Transfer(0x0, to, tokenId)` events, in log order: all three
 * arguments are indexed, so the topics say it all, no ABI decoding needed. `to` is lower case.
 */
function mintsOf(
  collectionAddress: string,
  receipt: EvmReceipt,
): { to: string; tokenId: string }[] {
  const emitter = collectionAddress.toLowerCase();
  const mints: { to: string; tokenId: string }[] = [];
  for (const log of receipt.logs) {
    const [topic, from, to, tokenId] = log.topics;
    if (
      log.address.toLowerCase() === emitter &&
      topic === TRANSFER_TOPIC &&
      from === FROM_NOBODY &&
      to !== undefined &&
      tokenId !== undefined
    ) {
      mints.push({ to: dataSlice(to, 12).toLowerCase(), tokenId: BigInt(tokenId).toString() });
    }
  }
  return mints;
}
