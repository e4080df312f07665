import { randomBytes, randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import {
  AuditEventRepository,
  ManagedWalletRepository,
  OperationRepository,
  SealedSecretsRepository,
  SettlementRepository,
  UnitOfWork,
  createDataSource,
} from '@app/database';
import { KeyRotation, SecretBox, openWalletSecret } from '@app/domain';
import { insertAccountRow } from '@test/support/account-rows';
import { newOperationEntity } from '@test/support/operation-factory';
import { startTestServices, type TestServices } from '@test/support/test-services';
import { scopeOf } from '@test/support/work-scope';

jest.setTimeout(120_000);

const k1 = { id: 'k1', key: randomBytes(32) };
const k2 = { id: 'k2', key: randomBytes(32) };
const oldBox = new SecretBox(k1, new Map([[k1.id, k1]]));
const rotatingBox = new SecretBox(
  k2,
  new Map([
    [k1.id, k1],
    [k2.id, k2],
  ]),
);
/** What opens secrets once k1 is retired: k2 alone. */
const newBox = new SecretBox(k2, new Map([[k2.id, k2]]));

/**
 * `npm run keys:rotate` (KeyRotation) on a real Postgres: every secret sealed under k1 brought
 * under k2, the wallets' keys themselves unchanged, each account's rotation in its audit log.
 */
describe('master key rotation', () => {
  let services: TestServices;
  let dataSource: DataSource;
  let sealed: SealedSecretsRepository;

  beforeAll(async () => {
    services = await startTestServices();
    dataSource = await createDataSource(services.databaseUrl).initialize();
    sealed = new SealedSecretsRepository(dataSource);
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await services.stop();
  });

  const rotation = (box = rotatingBox, batchSize?: number) =>
    new KeyRotation(
      box,
      sealed,
      new AuditEventRepository(dataSource),
      new UnitOfWork(dataSource),
      batchSize,
    );

  /** A wallet sealed under k1: by envelope, or (as before data keys) under k1 itself. */
  async function wallet(accountId: string, family: 'evm' | 'solana', enveloped: boolean) {
    const secret = randomBytes(32);
    const address = `${family}-${randomUUID()}`;
    const seal = enveloped
      ? oldBox.sealEnveloped(secret, address)
      : { ...oldBox.seal(secret, address), wrappedKey: null };
    await dataSource.query(
      `INSERT INTO managed_wallets (id, account_id, family, address, secret_ciphertext, data_key, secret_key_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [randomUUID(), accountId, family, address, seal.ciphertext, seal.wrappedKey, seal.keyId],
    );
    return { secret, address };
  }

  async function newMintSecret(accountId: string) {
    const operation = newOperationEntity(accountId, {
      kind: 'nft.mint',
      asset: 'collection',
      recipient: 'owner',
    } as never);
    await new OperationRepository(dataSource).insert(scopeOf(dataSource.manager), operation);
    const seed = randomBytes(32);
    const seal = oldBox.seal(seed, operation.id);
    await dataSource.query(
      `UPDATE operations SET new_mint_secret = $2, new_mint_key_id = $3 WHERE id = $1`,
      [operation.id, seal.ciphertext, seal.keyId],
    );
    return { id: operation.id, seed };
  }

  async function endpoint(accountId: string) {
    const id = randomUUID();
    const [secret, previous] = ['whsec_new', 'whsec_old'];
    const now = oldBox.seal(Buffer.from(secret), id);
    const before = oldBox.seal(Buffer.from(previous), id);
    await dataSource.query(
      `INSERT INTO webhook_endpoints (id, account_id, url, secret_ciphertext, secret_key_id,
         previous_secret_ciphertext, previous_secret_key_id, previous_secret_expires_at)
       VALUES ($1, $2, 'https://example.com/hook', $3, $4, $5, $6, now() + interval '1 day')`,
      [id, accountId, now.ciphertext, now.keyId, before.ciphertext, before.keyId],
    );
    return { id, secret, previous };
  }

  it('brings every secret under the new key, the wallets\u2019 keys unchanged, and says k1 is unused', async () => {
    const accountA = await insertAccountRow(dataSource, 'rotation-a');
    const accountB = await insertAccountRow(dataSource, 'rotation-b');
    const wallets = [
      { accountId: accountA, ...(await wallet(accountA, 'evm', true)) },
      { accountId: accountA, ...(await wallet(accountA, 'solana', false)) },
      { accountId: accountB, ...(await wallet(accountB, 'evm', false)) },
    ];
    const mints = [await newMintSecret(accountA), await newMintSecret(accountB)];
    const hook = await endpoint(accountB);

    const result = await rotation().run();
    expect(result).toMatchObject({
      wallets: 3,
      newMintSecrets: 2,
      webhookEndpoints: 1,
      keyId: 'k2',
    });
    expect(result.stillUnder.size).toBe(0);
    expect(await sealed.usageByKey()).toEqual(new Map([['k2', 3 + 2 + 2]]));

    const repository = new ManagedWalletRepository(dataSource);
    for (const { accountId, address, secret } of wallets) {
      const family = address.startsWith('evm') ? 'evm' : 'solana';
      const row = (await repository.findForAccount(accountId, family))!;
      expect(row.secretKeyId).toBe('k2');
      expect(row.dataKey).not.toBeNull(); // the legacy ones were given a data key
      expect(openWalletSecret(newBox, row).equals(secret)).toBe(true);
    }
    for (const mint of mints) {
      const [row] = await dataSource.query(
        `SELECT new_mint_secret AS ciphertext, new_mint_key_id AS "keyId" FROM operations WHERE id = $1`,
        [mint.id],
      );
      expect(newBox.open(row, mint.id).equals(mint.seed)).toBe(true);
    }
    const [endpointRow] = await dataSource.query(
      `SELECT secret_ciphertext, secret_key_id, previous_secret_ciphertext, previous_secret_key_id
         FROM webhook_endpoints WHERE id = $1`,
      [hook.id],
    );
    const open = (ciphertext: Buffer, keyId: string) =>
      newBox.open({ ciphertext, keyId }, hook.id).toString();
    expect(open(endpointRow.secret_ciphertext, endpointRow.secret_key_id)).toBe(hook.secret);
    expect(open(endpointRow.previous_secret_ciphertext, endpointRow.previous_secret_key_id)).toBe(
      hook.previous,
    );

    const audit: { account_id: string; details: Record<string, string> }[] = await dataSource.query(
      `SELECT account_id, details FROM audit_events WHERE type = 'managed_key.rewrapped'
        ORDER BY account_id`,
    );
    expect(audit).toEqual(
      [accountA, accountB].sort().map((account_id) => ({
        account_id,
        details: { from_key_id: 'k1', to_key_id: 'k2' },
      })),
    );

    // Nothing left: a second run changes nothing and records nothing.
    const again = await rotation().run();
    expect(again).toMatchObject({ wallets: 0, newMintSecrets: 0, webhookEndpoints: 0 });
  });

  it('takes up where a run cut short stopped', async () => {
    const accounts = [];
    for (let i = 0; i < 5; i++) accounts.push(await insertAccountRow(dataSource, `rotation-c${i}`));
    for (const accountId of accounts) await wallet(accountId, 'evm', true);
    const batches: number[] = [];
    await expect(
      rotation(rotatingBox, 2).run((done) => {
        batches.push(done.wallets);
        throw new Error('killed'); // after its first batch committed
      }),
    ).rejects.toThrow('killed');
    expect(batches).toEqual([2]);
    expect((await sealed.usageByKey()).get('k1')).toBe(3);

    const resumed = await rotation().run();
    expect(resumed.wallets).toBe(3);
    expect(resumed.stillUnder.size).toBe(0);
  });

  it('counts what a process still on the old key sealed behind it, for the operator to see', async () => {
    const accountId = await insertAccountRow(dataSource, 'rotation-d');
    await newMintSecret(accountId);
    let late = false;
    const result = await rotation().run(async (done) => {
      // The wallets are done: a registration on a process still sealing under k1 comes now.
      if (done.newMintSecrets > 0 && !late) {
        late = true;
        await wallet(accountId, 'evm', true);
      }
    });
    expect(late).toBe(true);
    expect(result.stillUnder).toEqual(new Map([['k1', 1]]));
  });

  it("drops a new mint's secret as its operation settles; no settled row holds one", async () => {
    const accountId = await insertAccountRow(dataSource, 'rotation-e');
    const [confirmed, failed, pending] = [
      await newMintSecret(accountId),
      await newMintSecret(accountId),
      await newMintSecret(accountId),
    ];
    await new SettlementRepository(dataSource).confirm(
      confirmed.id,
      { mintAddress: 'mint', tokenId: 'mint' },
      { kind: 'none' },
    );
    await new OperationRepository(dataSource).fail(failed.id, {
      code: 'BAD_GATEWAY',
      message: 'expired unlanded',
    });

    const held = await dataSource.query<{ id: string; key: string | null; secret: boolean }[]>(
      `SELECT id, new_mint_key_id AS key, new_mint_secret IS NOT NULL AS secret
         FROM operations WHERE account_id = $1`,
      [accountId],
    );
    expect(Object.fromEntries(held.map((row) => [row.id, [row.secret, row.key]]))).toEqual({
      [confirmed.id]: [false, null],
      [failed.id]: [false, null],
      [pending.id]: [true, 'k1'],
    });
    const settledWithSecret = newOperationEntity(accountId, { kind: 'token.mint' } as never, {
      status: 'confirmed',
      newMintSecret: randomBytes(60),
      newMintKeyId: 'k1',
    });
    await expect(
      new OperationRepository(dataSource).insert(scopeOf(dataSource.manager), settledWithSecret),
    ).rejects.toThrow(/operations_secret_until_settled/);
  });
});
