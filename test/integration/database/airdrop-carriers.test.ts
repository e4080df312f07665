import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { AssetIntent } from '@app/common';
import {
  BatchRepository,
  createDataSource,
  OperationRepository,
  SolanaOperationRepository,
  type BatchEntity,
  type OperationEntity,
} from '@app/database';
import { mostQueriesAtOnceOnAClient } from '@test/support/client-query-overlap';
import { newOperationEntity } from '@test/support/operation-factory';
import { startTestServices, type TestServices } from '@test/support/test-services';
import { evmWire } from '@test/support/wire-fixtures';
import { scopeOf } from '@test/support/work-scope';

const FEES = { maxFeePerGas: '30', maxPriorityFeePerGas: '2' };

/**
 * An airdrop's entries (members) and the carriers whose one transaction mints several of them
 * (migration 1766100000000): members show their carrier's state until they settle, without
 * being written (1766400000000); one carrier at a time holds an entry, a held entry is never
 * signed alone, a transaction is audited once, and members are announced only when they settle.
 */
describe('airdrop carriers', () => {
  let services: TestServices;
  let dataSource: DataSource;
  let operations: OperationRepository;
  let solanaOperations: SolanaOperationRepository;
  let batches: BatchRepository;
  let accountId: string;

  beforeAll(async () => {
    services = await startTestServices();
    dataSource = await createDataSource(services.databaseUrl).initialize();
    operations = new OperationRepository(dataSource);
    solanaOperations = new SolanaOperationRepository(dataSource);
    batches = new BatchRepository(dataSource);
    accountId = randomUUID();
    await dataSource.query(`INSERT INTO accounts (id, email, password_hash) VALUES ($1, $2, 'x')`, [
      accountId,
      `drop-${accountId}@example.com`,
    ]);
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await services.stop();
  });

  const scope = () => scopeOf(dataSource.manager);
  /** One carrier of these members, stored outside any transaction. */
  const carry = (carrier: OperationEntity, memberIds: string[]) =>
    batches.insertCarriers(scope(), [{ carrier, memberIds }]);

  /** A batch of `n` token mints to fresh recipients, stored as the API stores it. */
  async function batchOf(n: number): Promise<{ batch: BatchEntity; members: OperationEntity[] }> {
    const batch: BatchEntity = {
      id: randomUUID(),
      accountId,
      kind: 'token.airdrop',
      network: 'base',
      chainKey: 'evm:31337',
      asset: '0xtoken',
      signer: '0xowner',
      total: n,
      status: 'open',
      createdAt: new Date(),
      completedAt: null,
    };
    const members = Array.from({ length: n }, (_, i) => ({
      ...newOperationEntity(accountId, {
        kind: 'token.mint',
        asset: '0xtoken',
        recipient: `0xrecipient${i}`,
        amount: '1',
      }),
      batchId: batch.id,
      batchIndex: i,
      carrierId: null,
    }));
    await batches.insertAll(batch, members, []);
    return { batch, members };
  }

  function carrierOf(batchId: string, members: OperationEntity[]): OperationEntity {
    const intent: AssetIntent = {
      kind: 'token.mintBatch',
      asset: '0xtoken',
      recipients: members.map((member) => (member.intent as { recipient: string }).recipient),
      amounts: members.map(() => '1'),
    };
    return { ...newOperationEntity(accountId, intent), batchId, batchIndex: null, carrierId: null };
  }

  const rows = (ids: string[]) =>
    dataSource.query<{ id: string; status: string; tx_hash: string | null }[]>(
      `SELECT id, status, tx_hash FROM operations WHERE id = ANY($1::uuid[]) ORDER BY batch_index`,
      [ids],
    );

  const signEvm = (operation: OperationEntity, txHash: string, nonce: bigint) =>
    dataSource.transaction((manager) =>
      operations.markSignedMany(
        scopeOf(manager),
        [{ id: operation.id, nonce, signedTx: evmWire(txHash), txHash }],
        FEES,
      ),
    );

  it('stores a batch of many thousand entries with their carriers, or nothing when one statement fails', async () => {
    const count = 4_500; // several of insert's statements
    // Its statements one after another on the transaction's client, never one given to it while
    // another runs (deprecated by node-postgres, refused by pg@9).
    const { result, most: atOnce } = await mostQueriesAtOnceOnAClient(() => batchOf(count));
    expect(atOnce).toBe(1);
    const { batch, members } = result;
    const stored = await dataSource.query<{ n: number; first: number; last: number }[]>(
      `SELECT count(*)::int AS n, min(batch_index) AS first, max(batch_index) AS last
       FROM operations WHERE batch_id = $1`,
      [batch.id],
    );
    expect(stored).toEqual([{ n: count, first: 0, last: count - 1 }]);

    // Carried by carriers stored in the same transaction; the last statement's entry breaks
    // the batch's unique index: nothing of it is stored, carriers and earlier statements included.
    const again = { ...batch, id: randomUUID() };
    const entries = members.map((member) => ({ ...member, id: randomUUID(), batchId: again.id }));
    const carrier = carrierOf(again.id, entries.slice(0, 3));
    for (const entry of entries.slice(0, 3)) entry.carrierId = carrier.id;
    entries[count - 1].batchIndex = 0;
    await expect(batches.insertAll(again, entries, [], [carrier])).rejects.toThrow(
      /operations_batch_members/,
    );
    const left = await dataSource.query<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM operations WHERE batch_id = $1 OR id = $2`,
      [again.id, carrier.id],
    );
    expect(left).toEqual([{ n: 0 }]);
    expect(await batches.findById(again.id)).toBeNull();
  });

  it('gives an entry to one carrier only', async () => {
    const { batch, members } = await batchOf(4);
    const ids = members.map((member) => member.id);
    expect(await carry(carrierOf(batch.id, members), ids)).toBe(true);
    // Another carrier of two of them is refused (its caller rolls the carrier back).
    const second = carrierOf(batch.id, members.slice(0, 2));
    expect(await carry(second, ids.slice(0, 2))).toBe(false);
    expect(await batches.unpacked(batch.id, 0, 10)).toEqual([]);
  });

  it('stores a page of carriers at once, or none of them when one entry was taken', async () => {
    const { batch, members } = await batchOf(6);
    const [a, b, c] = [members.slice(0, 2), members.slice(2, 4), members.slice(4)];
    const page = (groups: OperationEntity[][]) =>
      groups.map((group) => ({
        carrier: carrierOf(batch.id, group),
        memberIds: group.map((member) => member.id),
      }));
    expect(await batches.insertCarriers(scope(), page([a]))).toBe(true);
    // b and c are free, a is taken: the page is refused, and its caller rolls it back.
    const runner = dataSource.createQueryRunner();
    await runner.startTransaction();
    try {
      expect(await batches.insertCarriers(scopeOf(runner.manager), page([b, a, c]))).toBe(false);
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
    const taken = page([b, c]);
    expect(await batches.insertCarriers(scope(), taken)).toBe(true);
    for (const { carrier, memberIds } of taken) {
      expect((await batches.carried(carrier.id)).map((member) => member.id)).toEqual(memberIds);
    }
  });

  it("shows carried entries in their carrier's state, writing none of them until they settle", async () => {
    const { batch, members } = await batchOf(3);
    const ids = members.map((member) => member.id);
    const carrier = carrierOf(batch.id, members);
    await carry(carrier, ids);
    /** What GET /operations/{id}, the operations list and the batch's items show of them. */
    const shown = async () => {
      const views = await Promise.all(
        ids.map((id) => operations.findViewForAccount(accountId, id)),
      );
      const details = await Promise.all(ids.map((id) => operations.findForAccount(accountId, id)));
      const listed = (await operations.listForAccount(accountId, 100)).operations.filter((op) =>
        ids.includes(op.id),
      );
      const items = await batches.members(batch.id, 0, 10);
      const states = [views, details, listed, items].map((list) =>
        list.map((op) => ({ status: op!.status, txHash: op!.txHash })),
      );
      for (const state of states.slice(1)) expect(state).toEqual(states[0]);
      return states[0];
    };

    await signEvm(carrier, '0xfirst', 7n);
    expect(await shown()).toEqual(ids.map(() => ({ status: 'signed', txHash: '0xfirst' })));
    expect((await batches.counts([batch.id])).get(batch.id)).toEqual({
      queued: 0,
      submitted: 3,
      confirmed: 0,
      failed: 0,
    });
    expect((await batches.members(batch.id, 0, 10, 'submitted')).length).toBe(3);
    expect(await batches.members(batch.id, 0, 10, 'queued')).toEqual([]);
    const items = await dataSource.query<{ item: number; operation_id: string }[]>(
      `SELECT item, operation_id FROM operation_transactions WHERE tx_hash = '0xfirst' ORDER BY item`,
    );
    expect(items).toEqual([
      { item: 0, operation_id: carrier.id },
      ...ids.map((id, i) => ({ item: i + 1, operation_id: id })),
    ]);

    await operations.markSubmitted(carrier.id);
    expect((await shown()).map((state) => state.status)).toEqual(ids.map(() => 'submitted'));
    expect(
      (
        await operations.listForAccount(accountId, 100, undefined, { status: 'submitted' })
      ).operations.filter((op) => ids.includes(op.id)).length,
    ).toBe(3);

    // A fee bump: a new version, which carries them too.
    expect(
      await operations.replaceSigned(carrier.id, '0xfirst', {
        signedTx: evmWire('second'),
        txHash: '0xsecond',
        fees: FEES,
      }),
    ).toBe(true);
    expect(await shown()).toEqual(ids.map(() => ({ status: 'signed', txHash: '0xsecond' })));

    // Its nonce taken by a stranger: queued again, and so are they, with no transaction.
    await operations.releaseSigned(scope(), carrier.id);
    expect(await shown()).toEqual(ids.map(() => ({ status: 'queued', txHash: null })));

    // Through all of it their own rows were never written: still queued, no transaction.
    expect(await rows(ids)).toEqual(ids.map((id) => ({ id, status: 'queued', tx_hash: null })));

    // One managed-key use audited per transaction, not per entry.
    const [{ audited }] = await dataSource.query<{ audited: number }[]>(
      `SELECT count(*)::int AS audited FROM audit_events
       WHERE details->>'tx' IN ('0xfirst', '0xsecond')`,
    );
    expect(audited).toBe(2);
  });

  it('never signs a carried entry alone, on either family', async () => {
    const { batch, members } = await batchOf(2);
    await carry(carrierOf(batch.id, members), [members[0].id]);
    const locked = await dataSource.transaction((manager) =>
      operations.lockQueued(scopeOf(manager), [members[0].id, members[1].id]),
    );
    expect([...locked]).toEqual([members[1].id]);
    await signEvm(members[0], '0xalone', 1n);
    expect(
      await solanaOperations.markSigned(members[0].id, {
        signedTx: 'wire',
        txHash: 'alone-signature',
        lastValidBlockHeight: 10n,
        fees: {},
      }),
    ).toBe(false);
    expect((await rows([members[0].id]))[0]).toMatchObject({ status: 'queued', tx_hash: null });
  });

  it('announces an entry only when it settles, never a carrier, and closes the batch at the last', async () => {
    const { batch, members } = await batchOf(2);
    const carrier = carrierOf(batch.id, members);
    await carry(
      carrier,
      members.map((member) => member.id),
    );
    await signEvm(carrier, '0xannounced', 9n);
    await operations.markSubmitted(carrier.id);
    await dataSource.transaction(async (manager) => {
      const inner = scopeOf(manager);
      await batches.lock(inner, batch.id);
      await batches.settleMembers(inner, [
        { id: carrier.id, outcome: { items: [{}, {}] }, txHash: '0xannounced' },
        { id: members[0].id, outcome: {}, txHash: '0xannounced' },
        { id: members[1].id, error: { code: 'CONFLICT', message: 'no' } },
      ]);
      const closed = await batches.completeIfSettled(inner, batch.id);
      expect(closed).toMatchObject({ id: batch.id, status: 'completed_with_failures' });
    });
    const events = await dataSource.query<{ operation_id: string; type: string }[]>(
      `SELECT operation_id, type FROM account_events
       WHERE operation_id = ANY($1::uuid[]) ORDER BY seq`,
      [[carrier.id, ...members.map((member) => member.id)]],
    );
    expect(events).toEqual([
      { operation_id: members[0].id, type: 'operation.confirmed' },
      { operation_id: members[1].id, type: 'operation.failed' },
    ]);
    const counts = await batches.counts([batch.id]);
    expect(counts.get(batch.id)).toEqual({ queued: 0, submitted: 0, confirmed: 1, failed: 1 });
  });
});
