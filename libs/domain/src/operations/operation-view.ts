import { ERROR_CODES, UNSETTLED_STATUSES, type AssetOutcome } from '@app/common';
import { solanaOutcome } from '@app/chains';
import type { OperationEntity } from '@app/database';

export type OperationView = Record<string, unknown> & {
  operation_id: string;
  status: string;
  network: string;
  tx: string | null;
  created_at: string;
};

/**
 * The `data` of every write's response, and of GET /operations/{id} (contract field names). It
 * lives in the domain, not among the API's presenters, because it is the public contract both
 * processes render: the worker publishes it on the settlement channel for the API's waiting
 * requests, and it is the `data` of operation events in the feed and in webhook bodies.
 */
export function operationView(operation: OperationEntity): OperationView {
  const intent = operation.intent;
  const result = outcomeOf(operation);
  const view: OperationView = {
    operation_id: operation.id,
    kind: operation.kind,
    status: operation.status,
    network: operation.network,
    tx: operation.txHash,
    created_at: operation.createdAt.toISOString(),
  };
  switch (intent.kind) {
    case 'token.create':
      Object.assign(view, {
        mint_address: result.mintAddress ?? null,
        metadata_uri: intent.metadataUri,
        decimals: intent.decimals,
        amount: operation.details.amount,
        owner: operation.signer,
      });
      break;
    case 'token.mint':
    case 'token.transfer':
      Object.assign(view, {
        mint_address: intent.asset,
        amount: operation.details.amount,
        recipient: intent.recipient,
      });
      break;
    case 'token.burn':
      Object.assign(view, { mint_address: intent.asset, amount: operation.details.amount });
      break;
    case 'nft.create':
      Object.assign(view, {
        mint_address: result.mintAddress ?? null,
        metadata_uri: intent.metadataUri || null,
      });
      break;
    case 'nft.mint':
      Object.assign(view, {
        collection: intent.collection,
        mint_address: result.mintAddress ?? null,
        token_id: result.tokenId ?? null,
        metadata_uri: intent.metadataUri,
        owner: intent.recipient,
      });
      break;
    case 'nft.transfer':
    case 'nft.burn':
      Object.assign(view, {
        // On Solana the item is its own mint (its token id), within the collection's group.
        ...(operation.network === 'solana'
          ? { mint_address: intent.tokenId, collection: intent.collection }
          : { mint_address: intent.collection }),
        token_id: intent.tokenId,
        from: operation.signer,
        ...(intent.kind === 'nft.transfer' ? { recipient: intent.recipient } : {}),
      });
      break;
    case 'token.mintBatch':
    case 'nft.mintBatch':
      break; // carriers: no client reads them (their entries are the operations to show)
  }
  if (UNSETTLED_STATUSES.includes(operation.status) && operation.attempts > 0) {
    // Still going after faults: how often it was tried, and what stopped it last.
    view.retries = {
      attempts: operation.attempts,
      last_error: operation.lastError,
      since: operation.retryingSince?.toISOString() ?? null,
    };
  }
  if (operation.status === 'failed' && operation.errorCode) {
    view.error = { error: ERROR_CODES[operation.errorCode].error, message: operation.errorMessage };
  }
  return view;
}

/**
 * What an operation produced, as far as it is known: its stored result (once confirmed) with
 * what its row tells of it (a Solana new mint's address, from the first signing on).
 */
export function outcomeOf(operation: OperationEntity): AssetOutcome {
  return { ...solanaNewMint(operation), ...operation.result };
}

/**
 * What of a confirmed operation's outcome its row is to store: not what its row tells already
 * (a Solana new mint's address, which `outcomeOf` takes from the row). An item's mint stored
 * as its result too was about 120 bytes of WAL a Solana mint.
 */
export function outcomeToStore(operation: OperationEntity, outcome: AssetOutcome): AssetOutcome {
  const told = solanaNewMint(operation) as Record<string, unknown>;
  return Object.fromEntries(
    Object.entries(outcome).filter(([field, value]) => told[field] !== value),
  );
}

/**
 * A Solana operation that creates a mint knows its address from its first signing (the mint's
 * keypair is kept with the operation): shown while it is still on its way, too.
 */
function solanaNewMint(operation: OperationEntity): AssetOutcome {
  if (!operation.newMintAddress || operation.network !== 'solana') return {};
  return solanaOutcome(operation.intent, operation.newMintAddress);
}
