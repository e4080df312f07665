import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CreatedWalletEntity } from '../entities';
import { pooledQuery } from './pooled-query';

const CREATED_WALLET = {
  name: 'created-wallet',
  text: `SELECT id, account_id AS "accountId", network, address, created_at AS "createdAt"
           FROM created_wallets
          WHERE account_id = $1
            AND (address = $2 OR (address LIKE '0x%' AND lower(address) = lower($2)))
          ORDER BY created_at ASC
          LIMIT 1`,
};

@Injectable()
export class CreatedWalletRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(wallet: CreatedWalletEntity): Promise<void> {
    await this.dataSource.getRepository(CreatedWalletEntity).insert(wallet);
  }

  /** The account's record of an address it created (EVM addresses compared case-insensitively). */
  async findForAccount(accountId: string, address: string): Promise<CreatedWalletEntity | null> {
    // The oldest record of the address among the account's (every wallet GET reads it).
    const rows = await pooledQuery<CreatedWalletEntity>(this.dataSource, CREATED_WALLET, [
      accountId,
      address,
    ]);
    return rows[0] ?? null;
  }
}
