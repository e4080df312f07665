import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { AssetIntent } from '@app/common';
import {
  createDataSource,
  OperationRepository,
  SettlementRepository,
  OperationEntity,
  SolanaOperationRepository,
} from '@app/database';
import { evmWire, solanaWire } from '@test/support/wire-fixtures';
import { scopeOf } from '@test/support/work-scope';
import { newOperationEntity } from '@test/support/operation-factory';
import { startTestServices, type TestServices } from '@test/support/test-services';

const FEES = { maxFeePerGas: '30', maxPriorityFeePerGas: '2' };

/**
 * Every signed transaction is recorded with its operation, and the database itself refuses to
 * let a second operation own (or be confirmed by) a transaction another operation owns.
 */
describe('operation transactions', () => {
  let services: TestServices;
  let dataSource: DataSource;
  let operations: OperationRepository;
  let solanaOperations: SolanaOperationRepository;
  let settlements: SettlementRepository;
  let accountId: string;

  beforeAll(async () => {
    services = await startTestServices();
    dataSource = await createDataSource(services.databaseUrl).initialize();
    operations = new OperationRepository(dataSource);
    solanaOperations = new SolanaOperationRepository(dataSource);
    settlements = new SettlementRepository(dataSource);
    accountId = randomUUID();
    await dataSource.query(`INSERT INTO accounts (id, email, password_hash) VALUES ($1, $2, 'x')`, [
      accountId,
      `tx-${accountId}@example.com`,
    ]);
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await services.stop();
  });

  async function queued(network: 'base' | 'solana'): Promise<OperationEntity> {
    const operation = newOperationEntity(accountId, { kind: 'token.mint' } as AssetIntent, {
      network,
      chainKey: network === 'solana' ? 'solana:test' : 'evm:31337:test',
      signer: 'signer',
    });
    await operations.insert(scopeOf(dataSource.manager), operation);
    return operation;
  }

  const signEvm = (operation: OperationEntity, txHash: string, nonce: bigint) =>
    dataSource.transaction((manager) =>
      operations.markSignedMany(
        scopeOf(manager),
        [{ id: operation.id, nonce, signedTx: evmWire(txHash), txHash }],
        FEES,
      ),
    );

  const signSolana = (operation: OperationEntity, signature: string) =>
    solanaOperations.markSigned(operation.id, {
      signedTx: solanaWire(signature),
      txHash: signature,
      lastValidBlockHeight: 100n,
      fees: { computeUnitPriceMicroLamports: '5' },
    });

  const transactions = (operationId: string) =>
    dataSource.query<{ tx_hash: string; nonce: string | null; fees: object | null }[]>(
      `SELECT tx_hash, nonce, fees FROM operation_transactions JOIN transactions USING (chain_key, tx_hash)
       WHERE operation_id = $1 ORDER BY created_at`,
      [operationId],
    );

  it('records each signed EVM transaction with its nonce and fees', async () => {
    const operation = await queued('base');
    await signEvm(operation, '0xaaa1', 7n);
    expect(await transactions(operation.id)).toEqual([
      { tx_hash: '0xaaa1', nonce: '7', fees: FEES },
    ]);
    expect((await operations.findById(operation.id))?.txHash).toBe('0xaaa1');
  });

  it('keeps the signed bytes in transactions alone', async () => {
    const operation = await queued('base');
    await signEvm(operation, '0xabc1', 2n);
    const columns = await dataSource.query<{ column_name: string }[]>(
      `SELECT column_name FROM information_schema.columns WHERE table_name = 'operations'`,
    );
    expect(columns.map((column) => column.column_name)).not.toContain('signed_tx');
    expect(
      await dataSource.query(
        `SELECT transaction_wire_text(chain_key, signed_tx) AS signed_tx, length(signed_tx) AS bytes
         FROM transactions WHERE chain_key = $1 AND tx_hash = '0xabc1'`,
        [operation.chainKey],
      ),
    ).toEqual([{ signed_tx: evmWire('0xabc1'), bytes: 6 }]);
    expect((await operations.findById(operation.id))?.signedTx).toBe(evmWire('0xabc1'));
  });

  it('reads an operation by id as TypeORM hydrates it, with its signed bytes', async () => {
    const operation = await queued('solana');
    await signSolana(operation, 'sig-read');
    const hydrated = await dataSource
      .getRepository(OperationEntity)
      .findOneByOrFail({ id: operation.id });
    const read = await operations.findById(operation.id);
    expect(read).toEqual({ ...hydrated, signedTx: solanaWire('sig-read') });
    // Transformed (bigint) and parsed (Date, jsonb) as the entity declares them.
    expect(read?.lastValidBlockHeight).toBe(100n);
    expect(read?.createdAt).toBeInstanceOf(Date);
    expect(await operations.findById(randomUUID())).toBeNull();
  });

  it('lets one transaction carry several operations, each of its items owned by one', async () => {
    // The shape batches use: one stored transaction, one row per item it carries.
    const [first, second, third] = [
      await queued('base'),
      await queued('base'),
      await queued('base'),
    ];
    await dataSource.query(
      `INSERT INTO transactions (chain_key, tx_hash, nonce, signed_tx) VALUES ($1, '0xbatch', 5, '\\x0b')`,
      [first.chainKey],
    );
    const carry = (operation: OperationEntity, item: number) =>
      dataSource.query(
        `INSERT INTO operation_transactions (chain_key, tx_hash, item, operation_id)
         VALUES ($1, '0xbatch', $2, $3)`,
        [operation.chainKey, item, operation.id],
      );
    await carry(first, 0);
    await carry(second, 1);
    await expect(carry(third, 1)).rejects.toThrow(/duplicate key/);
    for (const operation of [first, second]) {
      await dataSource.query(`UPDATE operations SET tx_hash = '0xbatch' WHERE id = $1`, [
        operation.id,
      ]);
      expect(await operations.listTransactions(operation.id)).toMatchObject([
        { txHash: '0xbatch', nonce: '5' },
      ]);
    }
    await expect(
      dataSource.query(`UPDATE operations SET tx_hash = '0xbatch' WHERE id = $1`, [third.id]),
    ).rejects.toThrow(/foreign key/);
  });

  it('refuses to sign a second operation with a hash another operation owns', async () => {
    const first = await queued('base');
    const second = await queued('base');
    await signEvm(first, '0xbbb1', 1n);
    // The row stays its owner's; the second operation cannot point at it.
    await expect(signEvm(second, '0xbbb1', 1n)).rejects.toThrow(/duplicate key|foreign key/);
    expect(await operations.findById(second.id)).toMatchObject({ status: 'queued', txHash: null });
    expect(await transactions(second.id)).toEqual([]);
    expect(await transactions(first.id)).toEqual([{ tx_hash: '0xbbb1', nonce: '1', fees: FEES }]);
  });

  it('lets an identical twin take over the transaction of an operation refused and failed', async () => {
    const refused = await queued('base');
    const twin = await queued('base');
    await signEvm(refused, '0xfff1', 4n);
    await operations.releaseSigned(scopeOf(dataSource.manager), refused.id);
    await operations.fail(refused.id, { code: 'INSUFFICIENT_FUNDS', message: 'insufficient' });
    await signEvm(twin, '0xfff1', 4n);
    expect(await operations.findById(twin.id)).toMatchObject({
      status: 'signed',
      txHash: '0xfff1',
    });
    expect(await transactions(twin.id)).toEqual([{ tx_hash: '0xfff1', nonce: '4', fees: FEES }]);
    expect(await transactions(refused.id)).toEqual([]);
  });

  it('refuses a Solana signature another operation owns, and records its own', async () => {
    const first = await queued('solana');
    const second = await queued('solana');
    expect(await signSolana(first, 'sig-1')).toBe(true);
    await expect(signSolana(second, 'sig-1')).rejects.toThrow(/duplicate key/);
    expect(await operations.findById(second.id)).toMatchObject({ status: 'queued', txHash: null });
    expect(await transactions(first.id)).toEqual([
      { tx_hash: 'sig-1', nonce: null, fees: { computeUnitPriceMicroLamports: '5' } },
    ]);
  });

  it('signs a Solana operation in place of its indexes (a HOT update)', async () => {
    const operation = await queued('solana');
    // This backend's HOT updates not yet flushed to the statistics: counted around the signing,
    // in one transaction (the repository only sends statements, which a manager takes as well).
    const hotUpdates = await dataSource.transaction(async (manager) => {
      const count = async () => {
        const [row] = await manager.query<{ hot: string }[]>(
          `SELECT n_tup_hot_upd AS hot FROM pg_stat_xact_user_tables WHERE relname = 'operations'`,
        );
        return Number(row.hot);
      };
      const before = await count();
      const signer = new SolanaOperationRepository(manager as unknown as DataSource);
      expect(
        await signer.markSigned(operation.id, {
          signedTx: solanaWire('sig-hot'),
          txHash: 'sig-hot',
          lastValidBlockHeight: 100n,
        }),
      ).toBe(true);
      return (await count()) - before;
    });
    expect(hotUpdates).toBe(1);
    expect(await operations.findById(operation.id)).toMatchObject({
      status: 'signed',
      txHash: 'sig-hot',
    });
  });

  it('counts a signed operation stale from its latest signing, not from when it was queued', async () => {
    const operation = await queued('solana');
    await dataSource.query(
      `UPDATE operations SET updated_at = now() - interval '1 hour' WHERE id = $1`,
      [operation.id],
    );
    const staleIds = async () =>
      (await operations.findStale(new Date(Date.now() - 60_000), 500)).map((stale) => stale.id);
    expect(await staleIds()).toContain(operation.id);

    expect(await signSolana(operation, 'sig-stale')).toBe(true);
    expect(await staleIds()).not.toContain(operation.id);

    // Its signing a while back and nothing since: the reconciler's again.
    await dataSource.query(
      `UPDATE operations SET updated_at = now() - interval '1 hour' WHERE id = $1`,
      [operation.id],
    );
    await dataSource.query(
      `UPDATE transactions SET created_at = now() - interval '2 minutes'
       WHERE chain_key = $1 AND tx_hash = 'sig-stale'`,
      [operation.chainKey],
    );
    expect(await staleIds()).toContain(operation.id);
  });

  it('refuses an operation pointing at a transaction that is not its own', async () => {
    const owner = await queued('base');
    const other = await queued('base');
    await signEvm(owner, '0xccc1', 3n);
    await expect(
      dataSource.query(`UPDATE operations SET tx_hash = '0xccc1' WHERE id = $1`, [other.id]),
    ).rejects.toThrow(/foreign key/);
  });

  it('keeps every fee version of a nonce and confirms with the one that was mined', async () => {
    const operation = await queued('base');
    await signEvm(operation, '0xddd1', 9n);
    expect(
      await operations.replaceSigned(operation.id, '0xddd1', {
        signedTx: evmWire('ddd2'),
        txHash: '0xddd2',
        fees: { maxFeePerGas: '60', maxPriorityFeePerGas: '3' },
      }),
    ).toBe(true);
    // A replacement of a version the operation no longer waits on changes nothing.
    expect(
      await operations.replaceSigned(operation.id, '0xddd1', {
        signedTx: evmWire('ddd3'),
        txHash: '0xddd3',
        fees: FEES,
      }),
    ).toBe(false);
    expect(await operations.findById(operation.id)).toMatchObject({
      status: 'signed',
      nonce: 9n,
      txHash: '0xddd2',
      signedTx: evmWire('ddd2'),
    });
    expect(await operations.transactionHashes(operation.id)).toEqual(['0xddd1', '0xddd2']);

    // Another operation's transaction cannot be adopted; the first version can.
    const stranger = await queued('base');
    await signEvm(stranger, '0xeee1', 10n);
    await expect(settlements.confirm(operation.id, {}, { kind: 'none' }, '0xeee1')).rejects.toThrow(
      /foreign key/,
    );
    expect(await settlements.confirm(operation.id, {}, { kind: 'none' }, '0xddd1')).toBe(true);
    expect(await operations.findById(operation.id)).toMatchObject({
      status: 'confirmed',
      txHash: '0xddd1',
    });
  });
});
