import type { SelectQueryBuilder } from 'typeorm';
import type { OperationStatus } from '@app/common';
import type { OperationEntity } from '../entities';

/**
 * An airdrop's entry rides its carrier (migration 1766400000000): from the carrier's signing to
 * its settlement the entry's row stays `queued` with no transaction of its own, and what it
 * shows is the carrier's status and transaction. Reads of entries join the carrier as
 * `carrier` to an operation aliased `op`; the settlement writes the entry's own.
 */
const CARRIER_OF_QUEUED = `carrier.id = op.carrier_id AND op.status = 'queued'`;

export const CARRIER_JOIN = `LEFT JOIN operations carrier ON ${CARRIER_OF_QUEUED}`;

/** The status an operation `op` shows, its carrier's while it rides one. */
export const SHOWN_STATUS = `COALESCE(carrier.status, op.status)`;

/** The transaction an operation `op` shows, its carrier's while it rides one. */
export const SHOWN_TX_HASH = `COALESCE(op.tx_hash, carrier.tx_hash)`;

/** `query` (of operations aliased `op`), each with what it shows while it rides a carrier. */
export async function withCarrierState(
  query: SelectQueryBuilder<OperationEntity>,
): Promise<OperationEntity[]> {
  const { entities, raw } = await query
    .leftJoin('operations', 'carrier', CARRIER_OF_QUEUED)
    .addSelect('carrier.status', 'carrier_status')
    .addSelect('carrier.tx_hash', 'carrier_tx_hash')
    .getRawAndEntities<{
      carrier_status: OperationStatus | null;
      carrier_tx_hash: string | null;
    }>();
  // One row per operation (the join is on the carrier's key), in the same order.
  return entities.map((operation, i) => {
    const { carrier_status: status, carrier_tx_hash: txHash } = raw[i];
    return status
      ? Object.assign(operation, { status, txHash: operation.txHash ?? txHash })
      : operation;
  });
}
