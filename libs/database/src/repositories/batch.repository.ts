import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { chunksOf, type AssetOutcome, type ErrorCode, type OperationStatus } from '@app/common';
import { BatchEntity, MetadataDocumentEntity, NftItemEntity, OperationEntity } from '../entities';
import { entityReader, type EntityReader } from './entity-reader';
import { insertManyStatement, insertParts } from './insert-statement';
import { CARRIER_JOIN, SHOWN_STATUS, withCarrierState } from './carrier-state';
import { decodePageCursor, encodePageCursor } from './page-cursor';
import { returnedRows } from './returned-rows';
import { SECRET_DROPPED } from './settled-secret';
import { managerOf, outsideTransaction, scopeOf, type WorkScope } from '../unit-of-work';

/** Members inserted by one statement: see insertOperations. */
const MEMBERS_A_STATEMENT = 2_000;

/** A batch's members by where they stand (`signed` ones count as submitted). */
export interface BatchCounts {
  queued: number;
  submitted: number;
  confirmed: number;
  failed: number;
}

export interface BatchPage {
  batches: BatchEntity[];
  nextCursor: string | null;
}

/**
 * What a settled member produced and the transaction it landed in, or why it failed (and the
 * transaction it failed in, if any: a member rides its carrier's, holding none of its own).
 */
export type MemberSettlement =
  | { id: string; outcome: AssetOutcome; txHash?: string | null }
  | { id: string; error: { code: ErrorCode; message: string }; txHash?: string | null };

/** A carrier to store and the members it takes. */
export interface CarrierOfMembers {
  carrier: OperationEntity;
  memberIds: string[];
}

/**
 * Airdrops (migration 1766100000000): the batch row, its members (operations of their own) and
 * the carriers that mint several of them in one transaction.
 */
@Injectable()
export class BatchRepository {
  private operationReader?: EntityReader<OperationEntity>;

  constructor(private readonly dataSource: DataSource) {}

  /**
   * The batch, its members and their metadata documents, in the scope's transaction; with the
   * carriers of members packed already (each member's `carrierId`), stored before them.
   */
  async insert(
    scope: WorkScope,
    batch: BatchEntity,
    members: OperationEntity[],
    documents: MetadataDocumentEntity[],
    carriers: OperationEntity[] = [],
  ): Promise<void> {
    const manager = managerOf(scope);
    const params: unknown[] = [];
    const row = insertParts(this.dataSource, BatchEntity, batch, params);
    await manager.query(
      `INSERT INTO "${row.table}" (${row.columns}) VALUES (${row.values})`,
      params,
    );
    if (documents.length > 0) {
      const docParams: unknown[] = [];
      const sql = insertManyStatement(
        this.dataSource,
        MetadataDocumentEntity,
        documents,
        docParams,
      );
      await manager.query(sql, docParams);
    }
    await this.insertOperations(scope, [carriers, ...chunksOf(members, MEMBERS_A_STATEMENT)]);
  }

  /**
   * Operations in groups, one statement each, in order: each statement is built while Postgres
   * runs the one before, and given to the transaction's client once that one is done (a client
   * takes one statement at a time: node-postgres deprecates giving it one while another runs).
   * One statement of 10,000 members kept the request's CPU and Postgres apart, each waiting on
   * the other: 0.4 s building, then 1.1 s inserting.
   */
  private async insertOperations(scope: WorkScope, groups: OperationEntity[][]): Promise<void> {
    const manager = managerOf(scope);
    let previous: Promise<unknown> = Promise.resolve();
    for (const operations of groups) {
      if (operations.length === 0) continue;
      const params: unknown[] = [];
      const sql = insertManyStatement(this.dataSource, OperationEntity, operations, params);
      previous = previous.then(() => manager.query(sql, params));
      // Awaited below; a failure meanwhile (the later statements then never run) is not unhandled.
      previous.catch(() => undefined);
      // TypeORM hands the statement to the driver a few promise turns later: let it go out.
      await new Promise((resolve) => setImmediate(resolve));
    }
    await previous;
  }

  /** As `insert`, in a transaction of its own. */
  insertAll(
    batch: BatchEntity,
    members: OperationEntity[],
    documents: MetadataDocumentEntity[],
    carriers: OperationEntity[] = [],
  ): Promise<void> {
    return this.dataSource.transaction((manager) =>
      this.insert(scopeOf(manager), batch, members, documents, carriers),
    );
  }

  findById(id: string): Promise<BatchEntity | null> {
    return this.dataSource.getRepository(BatchEntity).findOneBy({ id });
  }

  findForAccount(accountId: string, id: string): Promise<BatchEntity | null> {
    return this.dataSource.getRepository(BatchEntity).findOneBy({ id, accountId });
  }

  /** Newest first; the cursor is opaque to clients. */
  async listForAccount(accountId: string, limit: number, cursor?: string): Promise<BatchPage> {
    const query = this.dataSource
      .getRepository(BatchEntity)
      .createQueryBuilder('b')
      .where('b.account_id = :accountId', { accountId })
      .orderBy('b.created_at', 'DESC')
      .addOrderBy('b.id', 'DESC')
      .limit(limit + 1);
    const after = decodePageCursor(cursor);
    if (after) query.andWhere('(b.created_at, b.id) < (:at, :id)', after);
    const rows = await query.getMany();
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      batches: page,
      nextCursor: rows.length > limit && last ? encodePageCursor(last) : null,
    };
  }

  async counts(
    batchIds: string[],
    scope: WorkScope = outsideTransaction(this.dataSource),
  ): Promise<Map<string, BatchCounts>> {
    const rows: { batch_id: string; status: OperationStatus; n: number }[] = await managerOf(
      scope,
    ).query(
      `SELECT op.batch_id, ${SHOWN_STATUS} AS status, count(*)::int AS n
         FROM operations op ${CARRIER_JOIN}
         WHERE op.batch_id = ANY($1::uuid[]) AND op.batch_index IS NOT NULL
         GROUP BY op.batch_id, ${SHOWN_STATUS}`,
      [batchIds],
    );
    const counts = new Map<string, BatchCounts>(
      batchIds.map((id) => [id, { queued: 0, submitted: 0, confirmed: 0, failed: 0 }]),
    );
    for (const row of rows) {
      const count = counts.get(row.batch_id)!;
      count[row.status === 'signed' ? 'submitted' : row.status] += row.n;
    }
    return counts;
  }

  /** Members by index, from `fromIndex` on (at most `limit`), optionally of one status. */
  members(
    batchId: string,
    fromIndex: number,
    limit: number,
    status?: OperationStatus,
  ): Promise<OperationEntity[]> {
    const query = this.dataSource
      .getRepository(OperationEntity)
      .createQueryBuilder('op')
      .where('op.batch_id = :batchId AND op.batch_index >= :fromIndex', { batchId, fromIndex })
      .orderBy('op.batch_index', 'ASC')
      .limit(limit);
    if (status === 'submitted') query.andWhere(`${SHOWN_STATUS} IN ('signed', 'submitted')`);
    else if (status) query.andWhere(`${SHOWN_STATUS} = :status`, { status });
    return withCarrierState(query);
  }

  /** Members no carrier holds and nothing has signed yet: what is left to pack, by index. */
  unpacked(batchId: string, fromIndex: number, limit: number): Promise<OperationEntity[]> {
    return this.dataSource
      .getRepository(OperationEntity)
      .createQueryBuilder('op')
      .where(`op.batch_id = :batchId AND op.batch_index >= :fromIndex`, { batchId, fromIndex })
      .andWhere(`op.status = 'queued' AND op.settled_at IS NULL AND op.carrier_id IS NULL`)
      .orderBy('op.batch_index', 'ASC')
      .limit(limit)
      .getMany();
  }

  /**
   * The batch's carriers that nothing has signed yet (each needs its job), in the order of their
   * entries, so that a batch's entries are minted about in their order.
   */
  queuedCarriers(batchId: string): Promise<OperationEntity[]> {
    return this.dataSource
      .getRepository(OperationEntity)
      .createQueryBuilder('op')
      .where(`op.batch_id = :batchId AND op.batch_index IS NULL AND op.status = 'queued'`, {
        batchId,
      })
      .addSelect(
        '(SELECT min(m.batch_index) FROM operations m WHERE m.carrier_id = op.id)',
        'first_entry',
      )
      .orderBy('first_entry', 'ASC')
      .getMany();
  }

  /** The batches with members no carrier holds, untouched since `before`: to pack again. */
  async withUnpackedMembers(before: Date, limit: number): Promise<BatchEntity[]> {
    return this.dataSource.query(
      `SELECT b.id, b.account_id AS "accountId", b.network, b.signer FROM batches b
       WHERE b.status = 'open' AND EXISTS (
         SELECT 1 FROM operations op WHERE op.batch_id = b.id AND op.batch_index IS NOT NULL
           AND op.status = 'queued' AND op.settled_at IS NULL AND op.carrier_id IS NULL
           AND op.updated_at < $1)
       LIMIT $2`,
      [before, limit],
    );
  }

  /** Marks a batch's unpacked members as seen now (so the reconciler waits again). */
  async touchUnpacked(batchId: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE operations SET updated_at = now() WHERE batch_id = $1 AND batch_index IS NOT NULL
         AND status = 'queued' AND settled_at IS NULL AND carrier_id IS NULL`,
      [batchId],
    );
  }

  /**
   * Stores carriers and gives each its `memberIds`, in the scope's transaction, in two statements
   * however many (a packer stores a page of them at once: one transaction a carrier made packing
   * the whole of a 10,000-entry Solana airdrop's run). Each member must still be queued and held
   * by no carrier; false, to be rolled back, when any was taken or settled meanwhile.
   */
  async insertCarriers(scope: WorkScope, carriers: CarrierOfMembers[]): Promise<boolean> {
    if (carriers.length === 0) return true;
    const manager = managerOf(scope);
    const params: unknown[] = [];
    const insert = insertManyStatement(
      this.dataSource,
      OperationEntity,
      carriers.map(({ carrier }) => carrier),
      params,
    );
    await manager.query(insert, params);
    const members = carriers.flatMap(({ memberIds }) => memberIds);
    // `o.id = ANY(...)` lets the planner find the rows by key: joined to the unnested list alone,
    // it walked every pending row of the account against it (123 ms for 576 entries of 10,000).
    const taken: unknown[] = await manager.query(
      `UPDATE operations o SET carrier_id = v.carrier_id, updated_at = now()
       FROM unnest($1::uuid[], $2::uuid[]) AS v(id, carrier_id)
       WHERE o.id = v.id AND o.id = ANY($1::uuid[]) AND o.status = 'queued'
         AND o.carrier_id IS NULL
       RETURNING o.id`,
      [members, carriers.flatMap(({ carrier, memberIds }) => memberIds.map(() => carrier.id))],
    );
    return returnedRows(taken).length === members.length;
  }

  /** A carrier's members, in the order its transaction mints them. */
  async carried(
    carrierId: string,
    scope: WorkScope = outsideTransaction(this.dataSource),
  ): Promise<OperationEntity[]> {
    // Raw: read at every carrier's settlement, a row a member.
    const reader = (this.operationReader ??= entityReader(this.dataSource, OperationEntity, 'op'));
    const rows: Record<string, unknown>[] = await managerOf(scope).query(
      `SELECT ${reader.columns} FROM operations op WHERE op.carrier_id = $1
       ORDER BY op.batch_index`,
      [carrierId],
    );
    return rows.map((row) => reader.read(row));
  }

  /** An operation's status and transaction, its row locked until the scope's transaction ends. */
  async lockedState(
    scope: WorkScope,
    id: string,
  ): Promise<{ status: OperationStatus; txHash: string | null } | null> {
    const rows: { status: OperationStatus; txHash: string | null }[] = await managerOf(scope).query(
      `SELECT status, tx_hash AS "txHash" FROM operations WHERE id = $1 FOR UPDATE`,
      [id],
    );
    return rows[0] ?? null;
  }

  /**
   * Holds the batch's row until the scope's transaction ends: one closing check at a time. NO KEY:
   * its members' writes elsewhere (a carrier's signing, packing) check their foreign key to it
   * with a KEY SHARE lock, which this must not block.
   */
  async lock(scope: WorkScope, batchId: string): Promise<void> {
    await managerOf(scope).query(`SELECT 1 FROM batches WHERE id = $1 FOR NO KEY UPDATE`, [
      batchId,
    ]);
  }

  /**
   * Settles members still unsettled (confirmed with their outcome, or failed), in the scope's
   * transaction; returns the ids it settled.
   */
  async settleMembers(scope: WorkScope, settlements: MemberSettlement[]): Promise<string[]> {
    if (settlements.length === 0) return [];
    const result: unknown[] = await managerOf(scope).query(
      `UPDATE operations AS o SET
         status = CASE WHEN v.result IS NULL THEN 'failed' ELSE 'confirmed' END,
         result = v.result, error_code = v.error_code, error_message = v.error_message,
         tx_hash = COALESCE(v.tx_hash, o.tx_hash),
         updated_at = now(), settled_at = now(), ${SECRET_DROPPED}
       FROM unnest($1::uuid[], $2::jsonb[], $3::text[], $4::text[], $5::text[])
         AS v(id, result, error_code, error_message, tx_hash)
       WHERE o.id = v.id AND o.id = ANY($1::uuid[])
         AND o.status IN ('queued', 'signed', 'submitted')
       RETURNING o.id`,
      [
        settlements.map((s) => s.id),
        settlements.map((s) => ('outcome' in s ? JSON.stringify(s.outcome) : null)),
        settlements.map((s) => ('error' in s ? s.error.code : null)),
        settlements.map((s) => ('error' in s ? s.error.message : null)),
        settlements.map((s) => s.txHash ?? null),
      ],
    );
    return returnedRows<{ id: string }>(result).map((row) => row.id);
  }

  /** Items minted by confirmed members, in the scope's transaction. */
  async insertItems(scope: WorkScope, items: NftItemEntity[]): Promise<void> {
    if (items.length === 0) return;
    const params: unknown[] = [];
    const sql = insertManyStatement(this.dataSource, NftItemEntity, items, params);
    await managerOf(scope).query(sql, params);
  }

  /** Lets go of a carrier's members (queued again, for another carrier), in the scope. */
  async release(scope: WorkScope, carrierId: string): Promise<void> {
    await managerOf(scope).query(
      `UPDATE operations SET carrier_id = NULL, status = 'queued', tx_hash = NULL,
         updated_at = now()
       WHERE carrier_id = $1 AND status IN ('queued', 'signed', 'submitted')`,
      [carrierId],
    );
  }

  /**
   * Closes the batch once none of its members is unsettled, in the scope (whose caller holds
   * its lock): the closed row, or null while members are still on their way or it was closed.
   */
  async completeIfSettled(scope: WorkScope, batchId: string): Promise<BatchEntity | null> {
    const result: unknown[] = await managerOf(scope).query(
      `UPDATE batches b SET completed_at = now(),
         status = CASE WHEN EXISTS (SELECT 1 FROM operations WHERE batch_id = b.id
           AND batch_index IS NOT NULL AND status = 'failed')
           THEN 'completed_with_failures' ELSE 'completed' END
       WHERE b.id = $1 AND b.status = 'open' AND NOT EXISTS (
         SELECT 1 FROM operations WHERE batch_id = b.id AND batch_index IS NOT NULL
           AND settled_at IS NULL)
       RETURNING b.id, b.account_id AS "accountId", b.kind, b.network, b.chain_key AS "chainKey",
         b.asset, b.signer, b.total, b.status, b.created_at AS "createdAt",
         b.completed_at AS "completedAt"`,
      [batchId],
    );
    return returnedRows<BatchEntity>(result)[0] ?? null;
  }
}
