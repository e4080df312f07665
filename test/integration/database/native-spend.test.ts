import type { DataSource } from 'typeorm';
import type { AssetIntent } from '@app/common';
import { createDataSource, OperationRepository, SigningPolicyRepository } from '@app/database';
import { insertAccountRow } from '@test/support/account-rows';
import { newOperationEntity } from '@test/support/operation-factory';
import { startTestServices, type TestServices } from '@test/support/test-services';
import { scopeOf } from '@test/support/work-scope';

const DAY = '2026-11-27';
const CAP = 1_000n;

/**
 * The daily cap's count against a real Postgres: an operation counts the most one of its
 * signings can cost, once, however often it is signed (an expired Solana blockhash, an EVM
 * replacement, two workers at once); different operations add up; the cap is never passed.
 */
describe('native spend reservations', () => {
  let services: TestServices;
  let dataSource: DataSource;
  let operations: OperationRepository;
  let policies: SigningPolicyRepository;
  let accountId: string;

  beforeAll(async () => {
    services = await startTestServices();
    dataSource = await createDataSource(services.databaseUrl).initialize();
    operations = new OperationRepository(dataSource);
    policies = new SigningPolicyRepository(dataSource);
  });

  beforeEach(async () => {
    accountId = await insertAccountRow(dataSource, 'spend');
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await services?.stop();
  });

  async function newOperationId(): Promise<string> {
    const operation = newOperationEntity(accountId, { kind: 'token.mint' } as AssetIntent);
    await operations.insert(scopeOf(dataSource.manager), operation);
    return operation.id;
  }

  const reserve = (operationId: string, amount: bigint, day = DAY) =>
    policies.reserve({ accountId, operationId, network: 'base', day, amount, cap: CAP });

  const spent = (day = DAY) => policies.spent(accountId, 'base', day);

  it('counts an operation signed again only beyond what it counted', async () => {
    const id = await newOperationId();
    expect(await reserve(id, 600n)).toBe(true);
    // Without the operation's own count, 600 more would pass the cap of 1,000.
    expect(await reserve(id, 600n)).toBe(true);
    expect(await spent()).toBe(600n);
    expect(await reserve(id, 700n)).toBe(true); // a replacement that may cost more
    expect(await spent()).toBe(700n);
    expect(await reserve(id, 500n)).toBe(true); // a cheaper signing counts nothing more
    expect(await spent()).toBe(700n);
  });

  it('adds up different operations, and refuses the one that would pass the cap', async () => {
    const [first, second, third] = [
      await newOperationId(),
      await newOperationId(),
      await newOperationId(),
    ];
    expect(await reserve(first, 400n)).toBe(true);
    expect(await reserve(second, 500n)).toBe(true);
    expect(await reserve(third, 200n)).toBe(false);
    expect(await spent()).toBe(900n);
    // Refused, so nothing of it was counted: a smaller signing of it still fits.
    expect(await reserve(third, 100n)).toBe(true);
    expect(await spent()).toBe(1_000n);
  });

  it('counts an operation signed on two days on each day', async () => {
    const id = await newOperationId();
    expect(await reserve(id, 300n, '2026-11-26')).toBe(true);
    expect(await reserve(id, 300n)).toBe(true);
    expect([await spent('2026-11-26'), await spent()]).toEqual([300n, 300n]);
  });

  it('counts one operation once when two workers sign it at the same moment', async () => {
    // The day's row exists already, as it does after the account's first signing of the day.
    expect(await reserve(await newOperationId(), 100n)).toBe(true);
    const id = await newOperationId();
    const results = await Promise.all(Array.from({ length: 8 }, () => reserve(id, 600n)));
    expect(results).toEqual(Array(8).fill(true));
    expect(await spent()).toBe(700n);
  });

  it('never passes the cap with many operations signed at once', async () => {
    const ids = await Promise.all(Array.from({ length: 12 }, () => newOperationId()));
    const results = await Promise.all(ids.map((id) => reserve(id, 100n)));
    expect(results.filter(Boolean)).toHaveLength(10);
    expect(await spent()).toBe(1_000n);
  });
});
