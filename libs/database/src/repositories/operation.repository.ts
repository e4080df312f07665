import { Injectable } from '@nestjs/common';
import { DataSource, In, type EntityManager } from 'typeorm';
import {
  CARRIER_KINDS,
  KeyedGroupWriters,
  UNSETTLED_STATUSES,
  type ErrorCode,
  type OperationKind,
  type OperationStatus,
} from '@app/common';
import type { ConcreteNetwork } from '@app/config';
import { IdempotencyKeyEntity, MetadataDocumentEntity, OperationEntity } from '../entities';
import { QueryPriority } from '../query-priority';
import { managerOf, outsideTransaction, type WorkScope } from '../unit-of-work';
import { insertManyStatement, insertParts } from './insert-statement';
import { CARRIER_JOIN, SHOWN_STATUS, SHOWN_TX_HASH, withCarrierState } from './carrier-state';
import { decodePageCursor, encodePageCursor } from './page-cursor';
import { entityReader, type EntityReader } from './entity-reader';
import { pooledQuery } from './pooled-query';
import { returnedRows } from './returned-rows';
import { SECRET_DROPPED_COLUMNS } from './settled-secret';

/** Where an operation stands after a run that ended in a transient failure. */
export interface RetryRecord {
  status: OperationStatus;
  /** Runs that ended in a transient failure, this one included. */
  attempts: number;
  /** Failing since longer than the deadline. */
  pastDeadline: boolean;
}

/** What a list of an account's operations may be narrowed to. */
export interface OperationFilter {
  status?: OperationStatus;
  network?: ConcreteNetwork;
  kind?: OperationKind;
}

/** One transaction an operation signed (a first signing, a fee bump, a re-signing). */
export interface SignedTransactionRecord {
  txHash: string;
  nonce: string | null;
  lastValidBlockHeight: string | null;
  fees: Record<string, string> | null;
  createdAt: Date;
}

export interface OperationPage {
  operations: OperationEntity[];
  nextCursor: string | null;
}

/** A joined transaction's signed bytes as the chain's library takes them (migration 1767300000000). */
const SIGNED_TX_TEXT = `transaction_wire_text(t.chain_key, t.signed_tx)`;
/** Operations read by id in one statement at most (see `reads`). */
const MAX_READS_A_STATEMENT = 100;

/** The columns an operation's view shows, under their entity names (an entry: its carrier's state). */
const VIEW_COLUMNS = `op.id, op.account_id AS "accountId", op.kind, op.network,
  ${SHOWN_STATUS} AS status, op.intent, op.details, op.signer, ${SHOWN_TX_HASH} AS "txHash",
  op.new_mint_address AS "newMintAddress", op.result, op.error_code AS "errorCode",
  op.error_message AS "errorMessage", op.attempts, op.last_error AS "lastError",
  op.retrying_since AS "retryingSince", op.created_at AS "createdAt"`;

/** Carriers are the service's own: no client reads or lists them (a Postgres text[] literal). */
const CLIENT_HIDDEN = `{${CARRIER_KINDS.join(',')}}`;

const OPERATION_VIEW = {
  name: 'operation-view',
  text: `SELECT ${VIEW_COLUMNS} FROM operations op ${CARRIER_JOIN}
    WHERE op.id = $1 AND op.account_id = $2 AND op.kind <> ALL('${CLIENT_HIDDEN}')`,
};

const UNSETTLED_AMONG = {
  name: 'unsettled-among',
  text: `SELECT id FROM operations WHERE id = ANY($1::uuid[]) AND status = ANY($2::text[])`,
};

/**
 * An Idempotency-Key's claim meeting an entry of the key: it is taken over when that entry is
 * older than the new one by more than the retention window (`retention`, an interval parameter);
 * otherwise nothing is written (and nothing returned).
 */
const TAKING_AN_EXPIRED_KEY = (retention: string) => `
  ON CONFLICT (account_id, key) DO UPDATE SET request_hash = EXCLUDED.request_hash,
    operation_id = EXCLUDED.operation_id, batch_id = EXCLUDED.batch_id,
    created_at = EXCLUDED.created_at
  WHERE idempotency_keys.created_at < EXCLUDED.created_at - ${retention}::interval`;

/** An operation to store: its hosted metadata document, and the Idempotency-Key it claims. */
export interface NewOperationRow {
  operation: OperationEntity;
  metadata?: MetadataDocumentEntity | null;
  claim?: { key: IdempotencyKeyEntity; retentionMs: number };
}

/** Every status change is one conditional UPDATE: a step taken twice changes nothing. */
@Injectable()
export class OperationRepository {
  private operationReader?: EntityReader<OperationEntity>;
  private byIdsStatement?: { name: string; text: string };
  /**
   * Reads by id that arrive while one is under way are made together, in the next statement: a
   * worker reads each operation before each run, about a third of a mint's statements. By query
   * lane, so a read in the first lane (QueryPriority) never waits for the fair lane's.
   */
  private readonly reads = new KeyedGroupWriters<string, OperationEntity | null>(
    (_lane, ids) => this.findManyById(ids),
    MAX_READS_A_STATEMENT,
  );

  constructor(private readonly dataSource: DataSource) {}

  /** The scope of no transaction: each statement through it commits on its own. */
  outsideTransaction(): WorkScope {
    return outsideTransaction(this.dataSource);
  }

  /** The operation and (when it hosts one) its metadata document, in one statement. */
  async insert(
    scope: WorkScope,
    operation: OperationEntity,
    metadata?: MetadataDocumentEntity | null,
  ): Promise<void> {
    const params: unknown[] = [];
    const row = insertParts(this.dataSource, OperationEntity, operation, params);
    let sql = `INSERT INTO "${row.table}" (${row.columns}) VALUES (${row.values})`;
    if (metadata) {
      const doc = insertParts(this.dataSource, MetadataDocumentEntity, metadata, params);
      sql = `WITH document AS (INSERT INTO "${doc.table}" (${doc.columns}) VALUES (${doc.values}))
        ${sql}`;
    }
    await managerOf(scope).query(sql, params);
  }

  /**
   * Operations, each with its metadata document when it hosts one, in one statement outside any
   * transaction. One with a `claim` is stored only with its Idempotency-Key: when a live earlier
   * request holds the key, neither is written (false). A key claimed more than `retentionMs`
   * before the new request (the entry's `createdAt`) is past its window and taken over. A request
   * with the key still in flight is waited for: its commit leaves the key held, its rollback
   * frees it. All or none otherwise: one row that cannot be written fails the statement.
   */
  async insertMany(entries: NewOperationRow[]): Promise<boolean[]> {
    if (entries.length === 1) return [await this.insertAlone(entries[0])];
    const params: unknown[] = [];
    const claims = entries.flatMap(({ claim }) => (claim ? [claim] : []));
    const ctes: string[] = [];
    // Whether the operation `id` is stored: unclaimed ($1), or its key claimed.
    let storedIf = (_id: string) => 'TRUE';
    if (claims.length > 0) {
      const retentionMs = new Set(claims.map((claim) => claim.retentionMs));
      if (retentionMs.size > 1) throw new Error('One retention window a statement');
      params.push(
        entries.filter(({ claim }) => !claim).map(({ operation }) => operation.id),
        `${claims[0].retentionMs} milliseconds`,
      );
      storedIf = (id) => `(${id} = ANY($1::uuid[]) OR ${id} IN (SELECT operation_id FROM claimed))`;
      const keys = claims.map(({ key }) => key);
      const claim = insertManyStatement(this.dataSource, IdempotencyKeyEntity, keys, params);
      ctes.push(`claimed AS (${claim} ${TAKING_AN_EXPIRED_KEY('$2')} RETURNING operation_id)`);
    }
    const hosting = entries.filter(({ metadata }) => metadata);
    if (hosting.length > 0) {
      // Each document is stored with the operation hosting it.
      params.push(
        hosting.map(({ operation }) => operation.id),
        hosting.map(({ metadata }) => metadata!.id),
      );
      const [owners, ids] = [`$${params.length - 1}::uuid[]`, `$${params.length}::uuid[]`];
      const documents = insertManyStatement(
        this.dataSource,
        MetadataDocumentEntity,
        hosting.map(({ metadata }) => metadata!),
        params,
        `r."id" IN (SELECT o.document FROM unnest(${owners}, ${ids}) AS o(operation_id, document)
           WHERE ${storedIf('o.operation_id')})`,
      );
      ctes.push(`documents AS (${documents})`);
    }
    const operations = insertManyStatement(
      this.dataSource,
      OperationEntity,
      entries.map(({ operation }) => operation),
      params,
      storedIf('r."id"'),
    );
    const sql = `${ctes.length ? `WITH ${ctes.join(', ')} ` : ''}${operations} RETURNING id`;
    const rows: { id: string }[] = await this.dataSource.query(sql, params);
    const written = new Set(rows.map((row) => row.id));
    return entries.map(({ operation }) => written.has(operation.id));
  }

  /** One entry of `insertMany`, its values given as they are: the statement of a request alone. */
  private async insertAlone({ operation, metadata, claim }: NewOperationRow): Promise<boolean> {
    if (!claim) {
      await this.insert(this.outsideTransaction(), operation, metadata);
      return true;
    }
    const params: unknown[] = [`${claim.retentionMs} milliseconds`];
    const key = insertParts(this.dataSource, IdempotencyKeyEntity, claim.key, params);
    const row = insertParts(this.dataSource, OperationEntity, operation, params);
    const document = metadata
      ? insertParts(this.dataSource, MetadataDocumentEntity, metadata, params)
      : null;
    const documentToo = document
      ? `, document AS (INSERT INTO "${document.table}" (${document.columns})
          SELECT ${document.values} FROM claimed)`
      : '';
    const sql = `WITH claimed AS (
        INSERT INTO "${key.table}" (${key.columns}) VALUES (${key.values})
        ${TAKING_AN_EXPIRED_KEY('$1')} RETURNING 1)${documentToo}
      INSERT INTO "${row.table}" (${row.columns}) SELECT ${row.values} FROM claimed RETURNING 1`;
    const stored: unknown[] = await this.dataSource.query(sql, params);
    return stored.length === 1;
  }

  /** The whole row and the bytes of its transaction: what the worker carries forward. */
  findById(id: string): Promise<OperationEntity | null> {
    return this.reads.submit(QueryPriority.isFirst() ? 'first' : 'fair', id);
  }

  /** `findById` of each id, in their order. */
  private async findManyById(ids: string[]): Promise<(OperationEntity | null)[]> {
    // Read before each run of every operation: raw, prepared once per connection.
    const rows = await pooledQuery<Record<string, unknown>>(this.dataSource, this.byIds(), [ids]);
    const byId = new Map(rows.map((row) => [row.id as string, row]));
    return ids.map((id) => {
      const row = byId.get(id);
      return row ? this.reader().read(row) : null;
    });
  }

  private reader(): EntityReader<OperationEntity> {
    return (this.operationReader ??= entityReader(this.dataSource, OperationEntity, 'op'));
  }

  private byIds(): { name: string; text: string } {
    return (this.byIdsStatement ??= {
      name: 'operations-by-ids',
      text: `SELECT ${this.reader().columns}, ${SIGNED_TX_TEXT} AS "signedTx" FROM operations op
        LEFT JOIN transactions t ON t.chain_key = op.chain_key AND t.tx_hash = op.tx_hash
        WHERE op.id = ANY($1::uuid[])`,
    });
  }

  /** The account's operation with what its view shows: not its sealed key. */
  async findViewForAccount(accountId: string, id: string): Promise<OperationEntity | null> {
    // One operation by primary key, the account's only; a plain query: this is the hottest read.
    const rows = await pooledQuery<OperationEntity>(this.dataSource, OPERATION_VIEW, [
      id,
      accountId,
    ]);
    return rows[0] ?? null;
  }

  /** The whole row (the console's detail; GET /operations/{id} reads less, above). */
  async findForAccount(accountId: string, id: string): Promise<OperationEntity | null> {
    const [operation] = await withCarrierState(
      this.dataSource
        .getRepository(OperationEntity)
        .createQueryBuilder('op')
        .where('op.id = :id AND op.account_id = :accountId', { id, accountId })
        .andWhere('op.kind NOT IN (:...carriers)', { carriers: CARRIER_KINDS }),
    );
    return operation ?? null;
  }

  /** Newest first; the cursor is opaque to clients (created_at and id of the last row). */
  async listForAccount(
    accountId: string,
    limit: number,
    cursor?: string,
    filter: OperationFilter = {},
  ): Promise<OperationPage> {
    const query = this.dataSource
      .getRepository(OperationEntity)
      .createQueryBuilder('op')
      .where('op.account_id = :accountId', { accountId })
      .andWhere('op.kind NOT IN (:...carriers)', { carriers: CARRIER_KINDS });
    if (filter.status) query.andWhere(`${SHOWN_STATUS} = :status`, { status: filter.status });
    if (filter.network) query.andWhere('op.network = :network', { network: filter.network });
    if (filter.kind) query.andWhere('op.kind = :kind', { kind: filter.kind });
    query
      .orderBy('op.created_at', 'DESC')
      .addOrderBy('op.id', 'DESC')
      .limit(limit + 1);
    const after = decodePageCursor(cursor);
    if (after) {
      query.andWhere('(op.created_at, op.id) < (:at, :id)', { at: after.at, id: after.id });
    }
    const rows = await withCarrierState(query);
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      operations: page,
      nextCursor: rows.length > limit && last ? encodePageCursor(last) : null,
    };
  }

  /**
   * Locks the given operations that are still `queued` (for signing) and returns their ids. Not
   * an airdrop's entry that a carrier holds: only the carrier's transaction may mint it.
   */
  async lockQueued(scope: WorkScope, ids: string[]): Promise<Set<string>> {
    const rows: { id: string }[] = await managerOf(scope).query(
      `SELECT id FROM operations
       WHERE id = ANY($1::uuid[]) AND status = 'queued' AND carrier_id IS NULL FOR UPDATE`,
      [ids],
    );
    return new Set(rows.map((row) => row.id));
  }

  /**
   * queued -> signed for a batch locked by lockQueued, each signed transaction recorded with it,
   * in one statement. The batch shares its fee fields.
   *
   * Identical writes sign identical bytes at the same nonce: a twin of an operation the node
   * refused (failed, its nonce released) takes that transaction over, as it is the same
   * transaction. One another live operation owns stays its own, and the statement fails.
   *
   * Plain inserts where nothing is stored yet, not INSERT ... ON CONFLICT: a speculative insert
   * writes a second WAL record to confirm each row (96 bytes a mint, two rows). A wallet signs
   * under its lock, so no one else stores these hashes meanwhile; should one, the unique key
   * fails the statement and nothing is sent.
   */
  async markSignedMany(
    scope: WorkScope,
    signed: { id: string; nonce: bigint; signedTx: string; txHash: string }[],
    fees: Record<string, string>,
  ): Promise<void> {
    if (signed.length === 0) return;
    await managerOf(scope).query(
      `WITH signed AS (
         UPDATE operations AS o
         SET status = 'signed', nonce = v.nonce, tx_hash = v.tx_hash, updated_at = now()
         FROM unnest($1::uuid[], $2::bigint[], $3::text[], $4::text[])
           AS v(id, nonce, signed_tx, tx_hash)
         WHERE o.id = v.id AND o.id = ANY($1::uuid[]) AND o.status = 'queued'
           AND o.carrier_id IS NULL
         RETURNING o.id, o.chain_key, o.nonce, v.signed_tx, o.tx_hash),
       stored AS (
         INSERT INTO transactions (chain_key, tx_hash, nonce, fees, signed_tx)
         SELECT s.chain_key, s.tx_hash, s.nonce, $5::jsonb,
           transaction_wire_bytes(s.chain_key, s.signed_tx)
         FROM signed s
         WHERE NOT EXISTS (SELECT 1 FROM transactions t
           WHERE t.chain_key = s.chain_key AND t.tx_hash = s.tx_hash)),
       taken_over AS (
         UPDATE operation_transactions l SET operation_id = s.id
         FROM signed s
         WHERE l.chain_key = s.chain_key AND l.tx_hash = s.tx_hash AND l.item = 0
           AND l.operation_id IN
             (SELECT id FROM operations WHERE status = 'failed' AND tx_hash IS NULL))
       INSERT INTO operation_transactions (chain_key, tx_hash, item, operation_id)
       SELECT s.chain_key, s.tx_hash, 0, s.id FROM signed s
       WHERE NOT EXISTS (SELECT 1 FROM operation_transactions l
         WHERE l.chain_key = s.chain_key AND l.tx_hash = s.tx_hash AND l.item = 0)`,
      [
        signed.map((row) => row.id),
        signed.map((row) => row.nonce.toString()),
        signed.map((row) => row.signedTx),
        signed.map((row) => row.txHash),
        JSON.stringify(fees),
      ],
    );
  }

  /**
   * Replaces the signed transaction an operation waits on (a fee bump: same nonce, new fees),
   * recording the new one before it is sent. It is `signed` again until the node accepts it.
   * False when the operation no longer waits on `previousTxHash` (another worker replaced or
   * settled it first).
   */
  async replaceSigned(
    id: string,
    previousTxHash: string,
    next: { signedTx: string; txHash: string; fees: Record<string, string> },
    scope: WorkScope = outsideTransaction(this.dataSource),
  ): Promise<boolean> {
    const rows: unknown[] = await managerOf(scope).query(
      `WITH replaced AS (
         UPDATE operations SET status = 'signed', tx_hash = $4, updated_at = now()
         WHERE id = $1 AND tx_hash = $2 AND status IN ('signed', 'submitted')
         RETURNING id, chain_key, nonce),
       stored AS (
         INSERT INTO transactions (chain_key, tx_hash, nonce, fees, signed_tx)
         SELECT chain_key, $4, nonce, $5::jsonb, transaction_wire_bytes(chain_key, $3)
         FROM replaced)
       INSERT INTO operation_transactions (chain_key, tx_hash, item, operation_id)
       SELECT chain_key, $4, 0, id FROM replaced
       RETURNING operation_id`,
      [id, previousTxHash, next.signedTx, next.txHash, JSON.stringify(next.fees)],
    );
    return rows.length === 1;
  }

  /** Every transaction the operation signed, oldest first (without their wire bytes). */
  listTransactions(id: string): Promise<SignedTransactionRecord[]> {
    return this.dataSource.query(
      `SELECT t.tx_hash AS "txHash", t.nonce::text AS "nonce",
         t.last_valid_block_height::text AS "lastValidBlockHeight", t.fees,
         t.created_at AS "createdAt"
       FROM operation_transactions l JOIN transactions t USING (chain_key, tx_hash)
       WHERE l.operation_id = $1 ORDER BY t.created_at, t.tx_hash`,
      [id],
    );
  }

  /** The hashes of every version the operation signed for the nonce it holds, oldest first. */
  async transactionHashes(id: string): Promise<string[]> {
    const rows: { tx_hash: string }[] = await this.dataSource.query(
      `SELECT t.tx_hash
       FROM operation_transactions l JOIN transactions t USING (chain_key, tx_hash)
         JOIN operations o ON o.id = l.operation_id
       WHERE l.operation_id = $1 AND t.nonce = o.nonce ORDER BY t.created_at`,
      [id],
    );
    return rows.map((row) => row.tx_hash);
  }

  /**
   * signed -> submitted: the status alone, so that Postgres updates the row in place of its
   * indexes (a HOT update, migration 1767400000000); `updated_at` stays the signing's.
   */
  async markSubmittedMany(scope: WorkScope, ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await managerOf(scope).query(
      `UPDATE operations SET status = 'submitted'
       WHERE id = ANY($1::uuid[]) AND status = 'signed'`,
      [ids],
    );
  }

  async markSubmitted(id: string): Promise<void> {
    await this.dataSource
      .getRepository(OperationEntity)
      .update({ id, status: 'signed' }, { status: 'submitted' });
  }

  /**
   * signed -> queued, forgetting a transaction that provably never reached the chain (the node
   * refused it), so its nonce is free again and the operation is signed anew.
   */
  async releaseSigned(scope: WorkScope, id: string): Promise<void> {
    await managerOf(scope)
      .getRepository(OperationEntity)
      .update(
        { id, status: In(['signed', 'submitted']) },
        { status: 'queued', nonce: null, txHash: null, updatedAt: new Date() },
      );
  }

  async fail(
    id: string,
    error: { code: ErrorCode; message: string },
    scope: WorkScope = outsideTransaction(this.dataSource),
  ): Promise<boolean> {
    return this.failFrom(UNSETTLED_STATUSES, id, error, managerOf(scope));
  }

  /**
   * queued -> failed: only while nothing of the operation is signed, so no transaction of it
   * can still land. False when it was signed (or settled) first.
   */
  failQueued(id: string, error: { code: ErrorCode; message: string }): Promise<boolean> {
    return this.failFrom(['queued'], id, error, this.dataSource.manager);
  }

  private async failFrom(
    statuses: readonly OperationStatus[],
    id: string,
    error: { code: ErrorCode; message: string },
    manager: EntityManager,
  ): Promise<boolean> {
    const now = new Date();
    const update = await manager.getRepository(OperationEntity).update(
      { id, status: In(statuses) },
      {
        status: 'failed',
        errorCode: error.code,
        errorMessage: error.message,
        updatedAt: now,
        settledAt: now,
        ...SECRET_DROPPED_COLUMNS,
      },
    );
    return update.affected === 1;
  }

  /**
   * Records a run that ended in a transient failure, in one statement: one more attempt, its
   * reason, and (the first time) when retrying began. Says whether the operation is now past
   * its deadline, by Postgres's clock (one clock for every worker). Null once it is settled.
   */
  async recordRetry(
    id: string,
    lastError: string,
    deadlineMs: number,
  ): Promise<RetryRecord | null> {
    const result: unknown[] = await this.dataSource.query(
      `UPDATE operations
       SET attempts = attempts + 1, last_error = $2,
           retrying_since = COALESCE(retrying_since, now()), updated_at = now()
       WHERE id = $1 AND status IN ('queued', 'signed', 'submitted')
       RETURNING status, attempts,
         retrying_since <= now() - $3::double precision * interval '1 millisecond' AS past_deadline`,
      [id, lastError, deadlineMs],
    );
    const [row] = returnedRows<{
      status: OperationStatus;
      attempts: number;
      past_deadline: boolean;
    }>(result);
    return row
      ? { status: row.status, attempts: row.attempts, pastDeadline: row.past_deadline }
      : null;
  }

  /**
   * Unsettled operations not touched since the cutoff: the reconciler's work list. Not an
   * airdrop's entries that its carrier's job carries, nor those still to pack (the batch's
   * packing job takes them: BatchRepository.withUnpackedMembers). A signing touches an
   * operation at its transaction's time (a Solana signing leaves `updated_at`, to be HOT).
   */
  findStale(before: Date, limit: number): Promise<OperationEntity[]> {
    return this.dataSource
      .getRepository(OperationEntity)
      .createQueryBuilder('op')
      .where('op.status IN (:...statuses) AND op.settled_at IS NULL AND op.updated_at < :before', {
        statuses: UNSETTLED_STATUSES,
        before,
      })
      .andWhere(`(op.batch_index IS NULL OR (op.carrier_id IS NULL AND op.status <> 'queued'))`)
      .andWhere(
        `NOT EXISTS (SELECT 1 FROM transactions t
           WHERE t.chain_key = op.chain_key AND t.tx_hash = op.tx_hash AND t.created_at >= :before)`,
      )
      .orderBy('op.updated_at', 'ASC')
      .limit(limit)
      .getMany();
  }

  /** Which of these operations are not settled yet (the unknown ones are not among them). */
  async unsettledAmong(ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    // Raw: the backlog pruner asks this for hundreds of ids every few seconds, and TypeORM's
    // In() builds a parameter a value.
    const rows = await pooledQuery<{ id: string }>(this.dataSource, UNSETTLED_AMONG, [
      ids,
      UNSETTLED_STATUSES,
    ]);
    return new Set(rows.map((row) => row.id));
  }

  async touch(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.dataSource
      .getRepository(OperationEntity)
      .update({ id: In(ids), status: In(UNSETTLED_STATUSES) }, { updatedAt: new Date() });
  }

  /** A wallet's operations holding a nonce that may still reach the chain, lowest nonce first. */
  findInFlight(scope: WorkScope, chainKey: string, signer: string): Promise<OperationEntity[]> {
    return this.withSignedBytes(
      managerOf(scope),
      `op.chain_key = :chainKey AND op.signer = :signer AND op.status IN ('signed', 'submitted')
       AND op.settled_at IS NULL AND op.nonce IS NOT NULL`,
      { chainKey, signer },
      'op.nonce',
    );
  }

  /** Operations matching `where`, each with the bytes of the transaction it waits on. */
  private async withSignedBytes(
    manager: EntityManager,
    where: string,
    parameters: Record<string, unknown>,
    orderBy?: string,
  ): Promise<OperationEntity[]> {
    const query = manager
      .getRepository(OperationEntity)
      .createQueryBuilder('op')
      .leftJoin('transactions', 't', 't.chain_key = op.chain_key AND t.tx_hash = op.tx_hash')
      .addSelect(SIGNED_TX_TEXT, 'signed_tx')
      .where(where, parameters);
    if (orderBy) query.orderBy(orderBy, 'ASC');
    const { entities, raw } = await query.getRawAndEntities<{ signed_tx: string | null }>();
    // One row per operation (the join is on the transactions key), in the same order.
    return entities.map((operation, i) => Object.assign(operation, { signedTx: raw[i].signed_tx }));
  }
}
