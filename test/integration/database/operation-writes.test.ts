import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { AssetIntent } from '@app/common';
import {
  createDataSource,
  OperationRepository,
  SettlementRepository,
  type NftItemEntity,
  type OperationEntity,
} from '@app/database';
import { scopeOf } from '@test/support/work-scope';
import { newOperationEntity } from '@test/support/operation-factory';
import { startTestServices, type TestServices } from '@test/support/test-services';

/**
 * The single statements that write an operation with its other rows, against a real Postgres:
 * both writes or neither, and a settlement once only.
 */
describe('operation writes', () => {
  let services: TestServices;
  let dataSource: DataSource;
  let operations: OperationRepository;
  let settlements: SettlementRepository;
  let accountId: string;
  let collectionId: string;

  beforeAll(async () => {
    services = await startTestServices();
    dataSource = await createDataSource(services.databaseUrl).initialize();
    operations = new OperationRepository(dataSource);
    settlements = new SettlementRepository(dataSource);
    accountId = randomUUID();
    await dataSource.query(`INSERT INTO accounts (id, email, password_hash) VALUES ($1, $2, 'x')`, [
      accountId,
      `settle-${accountId}@example.com`,
    ]);
    const created = await newOperation({ kind: 'nft.create' } as AssetIntent);
    collectionId = randomUUID();
    expect(
      await settlements.confirm(
        created.id,
        { mintAddress: '0xc0ffee' },
        {
          kind: 'insert-asset',
          row: {
            id: collectionId,
            accountId,
            kind: 'collection',
            network: 'base',
            chainKey: 'evm:31337',
            address: '0xc0ffee',
            owner: '0xowner',
            name: 'Settled',
            symbol: 'STL',
            decimals: 0,
            metadataId: null,
            metadataUri: null,
            details: { description: 'settlement test' },
            operationId: created.id,
            createdAt: new Date(),
          },
        },
      ),
    ).toBe(true);
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await services.stop();
  });

  async function newOperation(intent: AssetIntent): Promise<OperationEntity> {
    const operation = operationRow(intent);
    await operations.insert(scopeOf(dataSource.manager), operation);
    return operation;
  }

  function operationRow(intent: AssetIntent): OperationEntity {
    return newOperationEntity(accountId, intent, { status: 'submitted' });
  }

  function item(operationId: string, tokenId: string): NftItemEntity {
    return {
      id: randomUUID(),
      collectionId,
      tokenId,
      mintAddress: '0xc0ffee',
      owner: '0xalice',
      burned: false,
      name: `Item ${tokenId}`,
      metadataId: null,
      metadataUri: 'https://example.com/1',
      details: { attributes: [{ trait_type: 'k', value: 'v' }] },
      operationId,
      createdAt: new Date(),
    };
  }

  const items = (tokenId: string) =>
    dataSource.query<{ owner: string; burned: boolean; details: object }[]>(
      'SELECT owner, burned, details FROM nft_items WHERE collection_id = $1 AND token_id = $2',
      [collectionId, tokenId],
    );

  it('confirms the operation and inserts its item, and a second confirmation writes nothing', async () => {
    const mint = await newOperation({ kind: 'nft.mint' } as AssetIntent);
    const outcome = { mintAddress: '0xc0ffee', tokenId: '1' };
    expect(
      await settlements.confirm(mint.id, outcome, { kind: 'insert-item', row: item(mint.id, '1') }),
    ).toBe(true);
    expect(
      await settlements.confirm(mint.id, outcome, { kind: 'insert-item', row: item(mint.id, '1') }),
    ).toBe(false);

    const stored = await operations.findById(mint.id);
    expect(stored).toMatchObject({ status: 'confirmed', result: outcome });
    expect(stored!.settledAt).toBeInstanceOf(Date);
    expect(await items('1')).toEqual([
      {
        owner: '0xalice',
        burned: false,
        details: { attributes: [{ trait_type: 'k', value: 'v' }] },
      },
    ]);
  });

  it('leaves the operation unsettled when its asset write fails: neither is written', async () => {
    const clash = await newOperation({ kind: 'nft.mint' } as AssetIntent);
    // Token id 1 exists already: the insert violates the collection's unique token ids.
    await expect(
      settlements.confirm(
        clash.id,
        { tokenId: '1' },
        { kind: 'insert-item', row: item(clash.id, '1') },
      ),
    ).rejects.toThrow(/duplicate key/);
    expect((await operations.findById(clash.id))!.status).toBe('submitted');
  });

  it('changes an item only while confirming its operation', async () => {
    const transfer = await newOperation({ kind: 'nft.transfer' } as AssetIntent);
    const move = {
      kind: 'update-item' as const,
      collectionId,
      tokenId: '1',
      change: { owner: '0xbob' },
    };
    expect(await settlements.confirm(transfer.id, {}, move)).toBe(true);
    expect((await items('1'))[0].owner).toBe('0xbob');

    // Replayed after settling: no effect, even with a different change.
    expect(
      await settlements.confirm(transfer.id, {}, { ...move, change: { owner: '0xeve' } }),
    ).toBe(false);
    expect((await items('1'))[0].owner).toBe('0xbob');

    const burn = await newOperation({ kind: 'nft.burn' } as AssetIntent);
    expect(await settlements.confirm(burn.id, {}, { ...move, change: { burned: true } })).toBe(
      true,
    );
    expect(await items('1')).toEqual([expect.objectContaining({ owner: '0xbob', burned: true })]);
  });

  it('confirms an operation with no asset rows, once', async () => {
    const tokenMint = await newOperation({ kind: 'token.mint' } as AssetIntent);
    expect(await settlements.confirm(tokenMint.id, {}, { kind: 'none' })).toBe(true);
    expect(await settlements.confirm(tokenMint.id, {}, { kind: 'none' })).toBe(false);
    expect((await operations.findById(tokenMint.id))!.status).toBe('confirmed');
  });

  it('records each transient failure and tells when the deadline has passed', async () => {
    const mint = await newOperation({ kind: 'token.mint' } as AssetIntent);
    expect(await operations.recordRetry(mint.id, 'The base RPC did not answer', 60_000)).toEqual({
      status: 'submitted',
      attempts: 1,
      pastDeadline: false,
    });
    const first = await operations.findById(mint.id);
    expect(first).toMatchObject({ attempts: 1, lastError: 'The base RPC did not answer' });
    expect(first!.retryingSince).toBeInstanceOf(Date);

    // The deadline counts from the first failure, which later ones do not move.
    await dataSource.query(
      `UPDATE operations SET retrying_since = now() - interval '2 minutes' WHERE id = $1`,
      [mint.id],
    );
    expect(await operations.recordRetry(mint.id, 'A connection failed', 60_000)).toEqual({
      status: 'submitted',
      attempts: 2,
      pastDeadline: true,
    });
    expect(await operations.findById(mint.id)).toMatchObject({
      attempts: 2,
      lastError: 'A connection failed',
    });

    expect(await settlements.confirm(mint.id, {}, { kind: 'none' })).toBe(true);
    expect(await operations.recordRetry(mint.id, 'too late', 60_000)).toBeNull();
  });

  it('fails an operation through failQueued only while it is queued', async () => {
    const error = { code: 'RETRIES_EXHAUSTED' as const, message: 'retries exhausted: x' };
    const signed = await newOperation({ kind: 'token.mint' } as AssetIntent);
    expect(await operations.failQueued(signed.id, error)).toBe(false);
    expect((await operations.findById(signed.id))!.status).toBe('submitted');

    const queued = operationRow({ kind: 'token.mint' } as AssetIntent);
    await operations.insert(scopeOf(dataSource.manager), {
      ...queued,
      status: 'queued',
      txHash: null,
    });
    expect(await operations.failQueued(queued.id, error)).toBe(true);
    expect(await operations.findById(queued.id)).toMatchObject({
      status: 'failed',
      errorCode: 'RETRIES_EXHAUSTED',
      errorMessage: 'retries exhausted: x',
    });
    expect(await operations.failQueued(queued.id, error)).toBe(false);
  });

  it('marks a signed operation submitted in place of its indexes (a HOT update)', async () => {
    const operation = newOperationEntity(accountId, { kind: 'nft.create' } as AssetIntent);
    await operations.insert(scopeOf(dataSource.manager), operation);
    await operations.markSignedMany(
      scopeOf(dataSource.manager),
      [{ id: operation.id, nonce: 9n, signedTx: '0x01', txHash: `0x${randomUUID()}` }],
      {},
    );
    // This backend's HOT updates not yet flushed to the statistics: counted around the write,
    // in one transaction (nothing is flushed in the middle of one).
    const hotUpdates = await dataSource.manager.transaction(async (manager) => {
      const count = async () => {
        const [row] = await manager.query<{ hot: string }[]>(
          `SELECT n_tup_hot_upd AS hot FROM pg_stat_xact_user_tables WHERE relname = 'operations'`,
        );
        return Number(row.hot);
      };
      const before = await count();
      await operations.markSubmittedMany(scopeOf(manager), [operation.id]);
      return (await count()) - before;
    });
    expect(hotUpdates).toBe(1);
    expect((await operations.findById(operation.id))?.status).toBe('submitted');
  });

  it('refuses a settled operation without its settlement time, and a queued one holding a nonce', async () => {
    const settledUntimed = newOperationEntity(accountId, { kind: 'nft.create' } as AssetIntent, {
      status: 'confirmed',
    });
    await expect(
      operations.insert(scopeOf(dataSource.manager), { ...settledUntimed, settledAt: null }),
    ).rejects.toThrow(/operations_settled_once_final/);
    const queuedWithNonce = newOperationEntity(accountId, { kind: 'nft.create' } as AssetIntent, {
      nonce: 3n,
    });
    await expect(operations.insert(scopeOf(dataSource.manager), queuedWithNonce)).rejects.toThrow(
      /operations_nonce_once_signed/,
    );
  });

  /** Each SQL statement the data source is given while `run` runs. */
  async function statementsOf<T>(
    run: () => Promise<T>,
  ): Promise<{ result: T; statements: string[] }> {
    const statements: string[] = [];
    const realQuery = dataSource.query.bind(dataSource);
    const query = jest
      .spyOn(dataSource, 'query')
      .mockImplementation((sql: string, parameters?: unknown[]) => {
        statements.push(sql);
        return realQuery(sql, parameters);
      });
    try {
      return { result: await run(), statements };
    } finally {
      query.mockRestore();
    }
  }

  it('stores many operations with their metadata documents in one statement, or none', async () => {
    const hosted = (name: string) => ({
      id: randomUUID(),
      accountId,
      document: { name },
      createdAt: new Date(),
    });
    const [first, second] = [hosted('First'), hosted('Second')];
    const entries = [
      {
        operation: { ...operationRow({ kind: 'nft.mint' } as AssetIntent), metadataId: first.id },
        metadata: first,
      },
      { operation: operationRow({ kind: 'token.mint' } as AssetIntent) },
      {
        operation: { ...operationRow({ kind: 'nft.mint' } as AssetIntent), metadataId: second.id },
        metadata: second,
      },
    ];
    const { statements } = await statementsOf(() => operations.insertMany(entries));
    expect(statements).toHaveLength(1);
    for (const { operation } of entries) {
      expect((await operations.findById(operation.id))?.metadataId).toBe(operation.metadataId);
    }
    // Inserted events in the entries' order, numbered on without a gap.
    const events = await dataSource.query<{ operation_id: string; seq: string }[]>(
      `SELECT operation_id, seq FROM account_events WHERE operation_id = ANY($1::uuid[]) ORDER BY seq`,
      [entries.map(({ operation }) => operation.id)],
    );
    expect(events.map((event) => event.operation_id)).toEqual(
      entries.map(({ operation }) => operation.id),
    );
    const seqs = events.map((event) => Number(event.seq));
    expect(seqs).toEqual(seqs.map((_, i) => seqs[0] + i));

    // A document id taken already fails the statement: none of its operations is stored.
    const again = [
      { operation: operationRow({ kind: 'token.mint' } as AssetIntent) },
      {
        operation: { ...operationRow({ kind: 'nft.mint' } as AssetIntent), metadataId: first.id },
        metadata: first,
      },
    ];
    await expect(operations.insertMany(again)).rejects.toThrow(/duplicate key/);
    for (const { operation } of again) expect(await operations.findById(operation.id)).toBeNull();
  });

  describe('insertMany with Idempotency-Keys', () => {
    const DAY_MS = 24 * 3600_000;
    const claimOf = (operation: OperationEntity, key: string, createdAt = operation.createdAt) => ({
      key: {
        accountId,
        key,
        requestHash: `hash of ${operation.id}`,
        operationId: operation.id,
        batchId: null,
        createdAt,
      },
      retentionMs: DAY_MS,
    });
    const keyRow = (key: string) =>
      dataSource.query<{ operation_id: string; request_hash: string }[]>(
        'SELECT operation_id, request_hash FROM idempotency_keys WHERE account_id = $1 AND key = $2',
        [accountId, key],
      );
    const hosted = () => ({
      id: randomUUID(),
      accountId,
      document: { name: 'Keyed' },
      createdAt: new Date(),
    });
    const mintHosting = (document: { id: string }) => ({
      ...operationRow({ kind: 'nft.mint' } as AssetIntent),
      metadataId: document.id,
    });
    const documentStored = async (id: string) =>
      (await dataSource.query('SELECT 1 FROM metadata_documents WHERE id = $1', [id])).length === 1;

    it('stores an operation alone with its document and key in one statement, or nothing while the key is held', async () => {
      const key = `k-${randomUUID()}`;
      const document = hosted();
      const first = mintHosting(document);
      const { result, statements } = await statementsOf(() =>
        operations.insertMany([
          { operation: first, metadata: document, claim: claimOf(first, key) },
        ]),
      );
      expect(result).toEqual([true]);
      expect(statements).toHaveLength(1);
      expect((await operations.findById(first.id))?.metadataId).toBe(document.id);
      expect(await keyRow(key)).toEqual([
        { operation_id: first.id, request_hash: `hash of ${first.id}` },
      ]);

      const secondDocument = hosted();
      const second = mintHosting(secondDocument);
      expect(
        await operations.insertMany([
          { operation: second, metadata: secondDocument, claim: claimOf(second, key) },
        ]),
      ).toEqual([false]);
      expect(await operations.findById(second.id)).toBeNull();
      expect(await documentStored(secondDocument.id)).toBe(false);
      expect((await keyRow(key))[0].operation_id).toBe(first.id);
    });

    it('stores a group in one statement: each keyed one only with its key, a key past its window taken over', async () => {
      const [held, expired, fresh] = [0, 1, 2].map(() => `k-${randomUUID()}`);
      const earlier = operationRow({ kind: 'token.mint' } as AssetIntent);
      const longAgo = operationRow({ kind: 'token.mint' } as AssetIntent);
      expect(
        await operations.insertMany([
          { operation: earlier, claim: claimOf(earlier, held) },
          {
            operation: longAgo,
            claim: claimOf(longAgo, expired, new Date(Date.now() - 2 * DAY_MS)),
          },
        ]),
      ).toEqual([true, true]);

      const documents = [hosted(), hosted(), hosted()];
      const unkeyed = mintHosting(documents[0]);
      const refused = mintHosting(documents[1]);
      const takesOver = operationRow({ kind: 'token.mint' } as AssetIntent);
      const claims = mintHosting(documents[2]);
      const { result, statements } = await statementsOf(() =>
        operations.insertMany([
          { operation: unkeyed, metadata: documents[0] },
          { operation: refused, metadata: documents[1], claim: claimOf(refused, held) },
          { operation: takesOver, claim: claimOf(takesOver, expired) },
          { operation: claims, metadata: documents[2], claim: claimOf(claims, fresh) },
        ]),
      );
      expect(statements).toHaveLength(1);
      expect(result).toEqual([true, false, true, true]);
      for (const operation of [unkeyed, takesOver, claims]) {
        expect(await operations.findById(operation.id)).not.toBeNull();
      }
      expect(await operations.findById(refused.id)).toBeNull();
      expect(await Promise.all(documents.map((document) => documentStored(document.id)))).toEqual([
        true,
        false,
        true,
      ]);
      expect((await keyRow(held))[0].operation_id).toBe(earlier.id);
      expect((await keyRow(expired))[0].operation_id).toBe(takesOver.id);
      expect((await keyRow(fresh))[0].operation_id).toBe(claims.id);
    });

    it('refuses a group claiming one key twice, writing nothing (its caller then writes each alone)', async () => {
      const key = `k-${randomUUID()}`;
      const twins = [0, 1].map(() => operationRow({ kind: 'token.mint' } as AssetIntent));
      await expect(
        operations.insertMany(
          twins.map((twin) => ({ operation: twin, claim: claimOf(twin, key) })),
        ),
      ).rejects.toThrow(/cannot affect row a second time/);
      for (const twin of twins) expect(await operations.findById(twin.id)).toBeNull();
      expect(await keyRow(key)).toEqual([]);
    });

    it('lets one of four requests racing with one key store its operation', async () => {
      const key = `k-${randomUUID()}`;
      const racers = [0, 1, 2, 3].map(() => operationRow({ kind: 'token.mint' } as AssetIntent));
      const claims = await Promise.all(
        racers.map((racer) =>
          operations.insertMany([{ operation: racer, claim: claimOf(racer, key) }]),
        ),
      );
      expect(claims.flat().filter(Boolean)).toHaveLength(1);
      const winner = racers[claims.flat().indexOf(true)];
      expect((await keyRow(key))[0].operation_id).toBe(winner.id);
      for (const racer of racers) {
        expect(await operations.findById(racer.id)).toEqual(
          racer === winner ? expect.anything() : null,
        );
      }
    });
  });

  describe('confirmMany', () => {
    const confirmedEvents = (ids: string[]) =>
      dataSource.query<{ operation_id: string; seq: string }[]>(
        `SELECT operation_id, seq FROM account_events
         WHERE operation_id = ANY($1::uuid[]) AND type = 'operation.confirmed' ORDER BY seq`,
        [ids],
      );

    it('confirms many operations with their rows in one statement, and tells which it confirmed', async () => {
      const mints = await Promise.all(
        ['10', '11', '12'].map(() => newOperation({ kind: 'nft.mint' } as AssetIntent)),
      );
      const tokenMint = await newOperation({ kind: 'token.mint' } as AssetIntent);
      const create = await newOperation({ kind: 'nft.create' } as AssetIntent);
      // The third mint settled before, alone: in the group it writes nothing, not even its item.
      expect(await settlements.confirm(mints[2].id, { tokenId: '12' }, { kind: 'none' })).toBe(
        true,
      );
      const collection = randomUUID();
      const { result: results, statements } = await statementsOf(() =>
        settlements.confirmMany([
          ...mints.map((mint, i) => ({
            id: mint.id,
            result: { mintAddress: '0xc0ffee', tokenId: `1${i}` },
            write: { kind: 'insert-item' as const, row: item(mint.id, `1${i}`) },
          })),
          { id: tokenMint.id, result: {}, write: { kind: 'none' } },
          {
            id: create.id,
            result: { mintAddress: '0xbeef' },
            write: {
              kind: 'insert-asset',
              row: {
                id: collection,
                accountId,
                kind: 'collection',
                network: 'base',
                chainKey: 'evm:31337',
                address: '0xbeef',
                owner: '0xowner',
                name: 'Grouped',
                symbol: 'GRP',
                decimals: 0,
                metadataId: null,
                metadataUri: null,
                details: {},
                operationId: create.id,
                createdAt: new Date(),
              },
            },
          },
        ]),
      );
      expect(statements).toHaveLength(1);
      expect(results).toEqual([true, true, false, true, true]);

      for (const [i, mint] of mints.slice(0, 2).entries()) {
        expect(await operations.findById(mint.id)).toMatchObject({
          status: 'confirmed',
          result: { mintAddress: '0xc0ffee', tokenId: `1${i}` },
        });
        expect(await items(`1${i}`)).toHaveLength(1);
      }
      expect((await operations.findById(mints[2].id))!.result).toEqual({ tokenId: '12' });
      expect(await items('12')).toEqual([]);
      expect((await operations.findById(tokenMint.id))!.status).toBe('confirmed');
      const [asset] = await dataSource.query<{ address: string }[]>(
        'SELECT address FROM assets WHERE id = $1',
        [collection],
      );
      expect(asset.address).toBe('0xbeef');

      // One event each, numbered on from the account's last without a gap.
      const grouped = [mints[0], mints[1], tokenMint, create].map((operation) => operation.id);
      const events = await confirmedEvents(grouped);
      expect(events.map((event) => event.operation_id).sort()).toEqual([...grouped].sort());
      const seqs = events.map((event) => Number(event.seq));
      expect(seqs).toEqual(seqs.map((_, i) => seqs[0] + i));
      const [{ last }] = await dataSource.query<{ last: string }[]>(
        'SELECT max(seq) AS last FROM account_events WHERE account_id = $1',
        [accountId],
      );
      expect(Number(last)).toBe(seqs[seqs.length - 1]);
    });

    it('writes none of the group when one of its rows cannot be written', async () => {
      const [fine, clash] = await Promise.all(
        [0, 1].map(() => newOperation({ kind: 'nft.mint' } as AssetIntent)),
      );
      await expect(
        settlements.confirmMany([
          {
            id: fine.id,
            result: { tokenId: '20' },
            write: { kind: 'insert-item', row: item(fine.id, '20') },
          },
          // Token id 1 exists already.
          {
            id: clash.id,
            result: { tokenId: '1' },
            write: { kind: 'insert-item', row: item(clash.id, '1') },
          },
        ]),
      ).rejects.toThrow(/duplicate key/);
      expect((await operations.findById(fine.id))!.status).toBe('submitted');
      expect((await operations.findById(clash.id))!.status).toBe('submitted');
      expect(await items('20')).toEqual([]);
    });
  });

  it('stores an operation with its metadata document, or neither', async () => {
    const document = {
      id: randomUUID(),
      accountId,
      document: { name: 'Hosted', image: 'https://example.com/i.png' },
      createdAt: new Date(),
    };
    const first = { ...operationRow({ kind: 'nft.mint' } as AssetIntent), metadataId: document.id };
    await operations.insert(scopeOf(dataSource.manager), first, document);
    const [stored] = await dataSource.query<{ document: object }[]>(
      'SELECT document FROM metadata_documents WHERE id = $1',
      [document.id],
    );
    expect(stored.document).toEqual(document.document);
    expect((await operations.findById(first.id))?.metadataId).toBe(document.id);

    // The same document id again: its insert fails, and takes the operation's with it.
    const second = {
      ...operationRow({ kind: 'nft.mint' } as AssetIntent),
      metadataId: document.id,
    };
    await expect(operations.insert(scopeOf(dataSource.manager), second, document)).rejects.toThrow(
      /duplicate key/,
    );
    expect(await operations.findById(second.id)).toBeNull();
  });
});
