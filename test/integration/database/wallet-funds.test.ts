import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { NetworkRegistry } from '@app/chains';
import { loadConfig } from '@app/config';
import {
  AccountEventRepository,
  createDataSource,
  OperationRepository,
  UnitOfWork,
  WalletFundsRepository,
  type WatchedWallet,
} from '@app/database';
import { WalletFundsRecorder } from '@app/domain';
import { scopeOf } from '@test/support/work-scope';
import { insertAccountRow } from '@test/support/account-rows';
import { newOperationEntity } from '@test/support/operation-factory';
import { startTestServices, type TestServices } from '@test/support/test-services';

jest.setTimeout(120_000);

const ETH = 1_000_000_000_000_000_000n;

/**
 * The wallet_funds state against Postgres: each crossing of the threshold is one event however
 * many readers record at once, a stale reading changes nothing, and only wallets that matter
 * now are listed for reading.
 */
describe('wallet funds', () => {
  let services: TestServices;
  let dataSource: DataSource;
  let funds: WalletFundsRepository;
  let recorder: WalletFundsRecorder;

  beforeAll(async () => {
    services = await startTestServices();
    dataSource = await createDataSource(services.databaseUrl).initialize();
    funds = new WalletFundsRepository(dataSource);
    const config = loadConfig({ WALLET_LOW_BALANCE_BASE: '1' });
    recorder = new WalletFundsRecorder(
      config,
      new NetworkRegistry(config),
      funds,
      new AccountEventRepository(dataSource),
      new UnitOfWork(dataSource),
    );
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await services.stop();
  });

  async function newWallet(): Promise<WatchedWallet> {
    const accountId = await insertAccountRow(dataSource, 'funds');
    const address = `0x${randomUUID().replace(/-/g, '').padEnd(40, '0')}`;
    await dataSource.query(
      `INSERT INTO managed_wallets (id, account_id, family, address, secret_ciphertext, secret_key_id)
       VALUES ($1, $2, 'evm', $3, '\\x00', 'k')`,
      [randomUUID(), accountId, address],
    );
    return { accountId, network: 'base', address };
  }

  const eventsOf = (accountId: string): Promise<{ type: string; data: unknown }[]> =>
    dataSource.query(`SELECT type, data FROM account_events WHERE account_id = $1 ORDER BY seq`, [
      accountId,
    ]);

  it('announces each crossing once when eight readers record it at the same time', async () => {
    const wallet = await newWallet();
    const recordAll = (balance: bigint) =>
      Promise.all(Array.from({ length: 8 }, () => recorder.record(wallet, balance, new Date())));

    await recordAll(ETH / 2n);
    await recordAll(ETH / 4n);
    await recordAll(3n * ETH);
    await recordAll(2n * ETH);

    expect(await eventsOf(wallet.accountId)).toEqual([
      {
        type: 'wallet.balance_low',
        data: { network: 'base', address: wallet.address, balance: '0.5', threshold: '1' },
      },
      {
        type: 'wallet.balance_restored',
        data: { network: 'base', address: wallet.address, balance: '3', threshold: '1' },
      },
    ]);
  });

  it('announces nothing for a wallet first seen above its threshold', async () => {
    const wallet = await newWallet();
    await recorder.record(wallet, ETH, new Date());
    expect(await eventsOf(wallet.accountId)).toEqual([]);
  });

  it('lets no reading older than the stored one undo it', async () => {
    const wallet = await newWallet();
    const now = Date.now();
    await recorder.record(wallet, 0n, new Date(now));
    await recorder.record(wallet, 5n * ETH, new Date(now - 1_000));
    expect((await eventsOf(wallet.accountId)).map((event) => event.type)).toEqual([
      'wallet.balance_low',
    ]);
  });

  it('lists wallets with recent or unsettled operations and those low, not idle ones', async () => {
    const operations = new OperationRepository(dataSource);
    const [recent, unsettled, low, idle] = await Promise.all([1, 2, 3, 4].map(() => newWallet()));
    const mint = { kind: 'token.mint', asset: '0xa', amount: '1', recipient: '0xb' } as const;
    const old = new Date(Date.now() - 60 * 60_000);
    await operations.insert(
      scopeOf(dataSource.manager),
      newOperationEntity(recent.accountId, mint, { status: 'confirmed' }),
    );
    await operations.insert(
      scopeOf(dataSource.manager),
      newOperationEntity(unsettled.accountId, mint, { createdAt: old }),
    );
    await operations.insert(
      scopeOf(dataSource.manager),
      newOperationEntity(idle.accountId, mint, { status: 'confirmed', createdAt: old }),
    );
    await recorder.record(low, 0n, new Date());

    const listed = await funds.listToCheck(new Date(Date.now() - 5 * 60_000), 1_000);
    const mine = listed.filter((wallet) =>
      [recent, unsettled, low, idle].some((own) => own.address === wallet.address),
    );
    expect(mine).toEqual(
      expect.arrayContaining(
        [recent, unsettled, low].map((wallet) => expect.objectContaining(wallet)),
      ),
    );
    expect(mine).toHaveLength(3);
  });
});
