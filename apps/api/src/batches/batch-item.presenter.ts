import { ERROR_CODES } from '@app/common';
import { familyOf } from '@app/config';
import type { BatchEntity, OperationEntity } from '@app/database';
import { outcomeOf } from '@app/domain';

/** One entry of an airdrop as GET /batches/{id}/items shows it (contract, "Airdrops"). */
export interface BatchItemView {
  index: number;
  recipient: string;
  /** Token airdrops: the amount, in whole units as the request gave it. */
  amount?: string;
  status: 'queued' | 'submitted' | 'confirmed' | 'failed';
  operation_id: string;
  tx: string | null;
  /** EVM NFT airdrops: the item's id, once minted. */
  token_id?: string | null;
  /** Solana NFT airdrops: the item's own mint, once minted. */
  mint_address?: string | null;
  error: { error: string; message: string | null } | null;
}

export function presentBatchItem(batch: BatchEntity, member: OperationEntity): BatchItemView {
  const intent = member.intent as { recipient: string };
  const nft = batch.kind === 'nft.airdrop';
  const solana = familyOf(batch.network) === 'solana';
  // Once minted: a result is stored as the entry confirms.
  const minted = member.result ? outcomeOf(member) : null;
  return {
    index: member.batchIndex!,
    recipient: intent.recipient,
    ...(nft ? {} : { amount: String(member.details.amount) }),
    status: member.status === 'signed' ? 'submitted' : member.status,
    operation_id: member.id,
    tx: member.txHash,
    ...(nft && !solana ? { token_id: minted?.tokenId ?? null } : {}),
    ...(nft && solana ? { mint_address: minted?.mintAddress ?? null } : {}),
    error: member.errorCode
      ? { error: ERROR_CODES[member.errorCode].error, message: member.errorMessage }
      : null,
  };
}
