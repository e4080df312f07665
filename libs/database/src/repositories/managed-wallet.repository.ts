import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { ChainFamily } from '@app/config';
import { ManagedWalletEntity } from '../entities';
import { managerOf, type WorkScope } from '../unit-of-work';
import { pooledQuery } from './pooled-query';

/** Read before every signing: prepared once per connection, without TypeORM's query builder. */
const MANAGED_WALLET = {
  name: 'managed-wallet',
  text: `SELECT id, account_id AS "accountId", family, address,
                secret_ciphertext AS "secretCiphertext", data_key AS "dataKey",
                secret_key_id AS "secretKeyId", token_key_id AS "tokenKeyId",
                created_at AS "createdAt"
           FROM managed_wallets WHERE account_id = $1 AND family = $2 LIMIT 1`,
};

@Injectable()
export class ManagedWalletRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insertMany(scope: WorkScope, wallets: ManagedWalletEntity[]): Promise<void> {
    await managerOf(scope).getRepository(ManagedWalletEntity).insert(wallets);
  }

  listForAccount(accountId: string): Promise<ManagedWalletEntity[]> {
    return this.dataSource
      .getRepository(ManagedWalletEntity)
      .find({ where: { accountId }, order: { family: 'DESC' } });
  }

  async findForAccount(
    accountId: string,
    family: ChainFamily,
  ): Promise<ManagedWalletEntity | null> {
    const rows = await pooledQuery<ManagedWalletEntity>(this.dataSource, MANAGED_WALLET, [
      accountId,
      family,
    ]);
    return rows[0] ?? null;
  }
}
