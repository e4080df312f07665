import { newId, type AssetIntent, type CarrierIntent } from '@app/common';
import { newQueuedOperation, type OperationEntity } from '@app/database';

type MemberIntent = Extract<AssetIntent, { kind: 'token.mint' | 'nft.mint' }>;

/**
 * A new carrier for `members` (entries of one batch, in index order, all with or all without a
 * royalty of their own): one operation whose transaction mints them all.
 */
export function newCarrier(members: OperationEntity[], id = newId()): OperationEntity {
  const first = members[0];
  return {
    ...newQueuedOperation({
      id,
      accountId: first.accountId,
      network: first.network,
      chainKey: first.chainKey,
      signer: first.signer,
      intent: carrierIntent(members.map((member) => member.intent as MemberIntent)),
    }),
    batchId: first.batchId,
    batchIndex: null,
    carrierId: null,
  };
}

function carrierIntent(intents: MemberIntent[]): CarrierIntent {
  const first = intents[0];
  if (first.kind === 'token.mint') {
    const mints = intents as Extract<MemberIntent, { kind: 'token.mint' }>[];
    return {
      kind: 'token.mintBatch',
      asset: first.asset,
      recipients: mints.map((mint) => mint.recipient),
      amounts: mints.map((mint) => mint.amount),
      ...(first.decimals === undefined ? {} : { decimals: first.decimals }),
    };
  }
  const items = intents as Extract<MemberIntent, { kind: 'nft.mint' }>[];
  return {
    kind: 'nft.mintBatch',
    collection: first.collection,
    recipients: items.map((item) => item.recipient),
    ...(first.sellerFeeBps === undefined
      ? {}
      : { sellerFeeBps: items.map((item) => item.sellerFeeBps ?? 0) }),
  };
}

/** Whether a member's item has a royalty of its own (carried apart from those that do not). */
export function hasOwnRoyalty(member: OperationEntity): boolean {
  return member.intent.kind === 'nft.mint' && member.intent.sellerFeeBps !== undefined;
}

/**
 * A page of entries cut into groups of `perCarrier`. Unless it is the batch's last page, the
 * entries short of a full group are left over for the next page's, so that a batch read page by
 * page still ends with one small carrier at most.
 */
export function cutIntoCarriers<T>(
  entries: T[],
  perCarrier: number,
  lastPage: boolean,
): { carriers: T[][]; leftOver: T[] } {
  const full = lastPage ? entries.length : entries.length - (entries.length % perCarrier);
  const carriers: T[][] = [];
  for (let i = 0; i < full; i += perCarrier) carriers.push(entries.slice(i, i + perCarrier));
  return { carriers, leftOver: entries.slice(full) };
}
