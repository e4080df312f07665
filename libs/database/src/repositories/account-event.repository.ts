import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { OperationEntity } from '../entities';
import { managerOf, outsideTransaction, type WorkScope } from '../unit-of-work';

/** Events the application writes itself; operation and API key events come from triggers. */
export type AppEventType =
  | 'webhook_endpoint.disabled'
  | 'wallet.balance_low'
  | 'wallet.balance_restored'
  | 'batch.completed';

export type AccountEventType =
  | 'operation.queued'
  | 'operation.submitted'
  | 'operation.confirmed'
  | 'operation.failed'
  | 'api_key.created'
  | 'api_key.revoked'
  | AppEventType;

export const ACCOUNT_EVENT_TYPES: readonly AccountEventType[] = [
  'operation.queued',
  'operation.submitted',
  'operation.confirmed',
  'operation.failed',
  'api_key.created',
  'api_key.revoked',
  'webhook_endpoint.disabled',
  'wallet.balance_low',
  'wallet.balance_restored',
  'batch.completed',
];

/** The Postgres channel notified (with the account id) when an account's events commit. */
export const ACCOUNT_EVENTS_CHANNEL = 'account_events';

export interface StoredAccountEvent {
  id: string;
  accountId: string;
  /** The account's event number: 1, 2, 3, ... with no gap, in commit order. */
  seq: string;
  type: AccountEventType;
  operationId: string | null;
  /**
   * An operation event's operation row as it was then (as `EVENT_DATA` renders it), else the
   * event's own fields.
   */
  data: Record<string, unknown>;
  createdAt: Date;
}

/** The fields of an operation that can change while it is unsettled (migration 1767000000000). */
const CHANGING_FIELDS = [
  'tx_hash',
  'result',
  'new_mint_address',
  'error_code',
  'error_message',
  'attempts',
  'last_error',
  'retrying_since',
] as const;

/** What an unsettled operation's event does not store: null, and no attempt yet. */
const UNSTORED_WHILE_UNSETTLED = JSON.stringify({
  ...Object.fromEntries(CHANGING_FIELDS.map((field) => [field, null])),
  attempts: 0,
});

/**
 * What a submitted event's row tells as well as it did then: a new mint's address, set by the
 * first signing and never changed after (migration 1768200000000). A queued event comes before
 * any signing.
 */
const FIXED_ONCE_SIGNED = `jsonb_build_object('new_mint_address',
    CASE WHEN e.type = 'operation.submitted' THEN o.new_mint_address END)`;

/** A settled operation's changing fields, from its row: final once it settles. */
const SETTLED_FIELDS = `jsonb_build_object(${CHANGING_FIELDS.map((field) => `'${field}', o.${field}`).join(', ')})`;

/**
 * An event's data as its readers render it, from `account_events e` joined with
 * `OPERATION_OF_EVENT`: an operation event's stored fields over its operation's fixed fields,
 * its status (its type: `operation.submitted`), and the changing fields it does not store. Since
 * migration 1767000000000 an event stores only what changes, since 1767100000000 only what holds
 * a value, and since 1767800000000 neither its status nor zero attempts, and a settled event
 * (confirmed, failed) nothing at all: its operation's row is final, so the reader takes those
 * fields from it; since 1768200000000 a submitted event not its new mint's address either. An
 * older event's stored fields, its whole row included, override them all.
 */
export const EVENT_DATA = `CASE WHEN o.id IS NULL THEN e.data ELSE jsonb_build_object(
    'id', o.id, 'account_id', o.account_id, 'kind', o.kind, 'network', o.network,
    'signer', o.signer, 'intent', o.intent, 'details', o.details, 'created_at', o.created_at
  ) || CASE WHEN e.type IN ('operation.confirmed', 'operation.failed') THEN ${SETTLED_FIELDS}
       ELSE '${UNSTORED_WHILE_UNSETTLED}'::jsonb || ${FIXED_ONCE_SIGNED} END
    || jsonb_build_object('status', substr(e.type, length('operation.') + 1))
    || e.data END`;
export const OPERATION_OF_EVENT = `LEFT JOIN operations o ON o.id = e.operation_id`;

const COLUMNS = `e.id, e.account_id AS "accountId", e.seq::text AS "seq", e.type,
  e.operation_id AS "operationId", ${EVENT_DATA} AS data, e.created_at AS "createdAt"`;

/**
 * The account's event feed, an outbox (migration 1765300000000): rows are numbered and stamped
 * by the database, in the transaction of the change they tell of.
 */
@Injectable()
export class AccountEventRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Records an event; pass the scope of the transaction making the change it tells of. */
  async append(
    accountId: string,
    type: AppEventType,
    data: Record<string, unknown>,
    scope: WorkScope = outsideTransaction(this.dataSource),
  ): Promise<void> {
    await managerOf(scope).query(
      `INSERT INTO account_events (account_id, type, data) VALUES ($1, $2, $3::jsonb)`,
      [accountId, type, JSON.stringify(data)],
    );
  }

  /** Oldest first, after the given sequence number (0: from the start). */
  async listAfter(
    accountId: string,
    afterSeq: bigint,
    limit: number,
  ): Promise<StoredAccountEvent[]> {
    return this.dataSource.query(
      `SELECT ${COLUMNS} FROM account_events e ${OPERATION_OF_EVENT}
       WHERE e.account_id = $1 AND e.seq > $2::bigint ORDER BY e.seq LIMIT $3`,
      [accountId, afterSeq.toString(), limit],
    );
  }

  /** An operation's events, oldest first. */
  listForOperation(accountId: string, operationId: string): Promise<StoredAccountEvent[]> {
    return this.dataSource.query(
      `SELECT ${COLUMNS} FROM account_events e ${OPERATION_OF_EVENT}
       WHERE e.account_id = $1 AND e.operation_id = $2 ORDER BY e.seq`,
      [accountId, operationId],
    );
  }

  /** The account's last sequence number (0 before its first event). */
  async lastSeq(accountId: string): Promise<bigint> {
    const rows: { seq: string | null }[] = await this.dataSource.query(
      `SELECT max(seq)::text AS seq FROM account_events WHERE account_id = $1`,
      [accountId],
    );
    return BigInt(rows[0]?.seq ?? 0);
  }

  /**
   * An operation event's snapshot (the row as `to_jsonb` wrote it) read back as the entity, with
   * the entity's own column transformers, so the operation's view renders it as it was then.
   */
  operationFromSnapshot(data: Record<string, unknown>): OperationEntity {
    const metadata = this.dataSource.getMetadata(OperationEntity);
    const entity = metadata.create() as OperationEntity;
    for (const column of metadata.columns) {
      const raw = data[column.databaseName];
      if (raw === undefined) continue;
      let value: unknown = raw;
      if (raw !== null && (column.type === 'timestamptz' || column.type === Date)) {
        value = new Date(raw as string);
      } else if (typeof raw === 'number' && column.type === 'bigint') {
        value = raw.toString();
      }
      const transformer = column.transformer;
      if (transformer && !Array.isArray(transformer)) value = transformer.from(value);
      column.setEntityValue(entity, value);
    }
    return entity;
  }
}
