import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CreatedWalletEntity } from '../entities';

@Injectable()
export class CreatedWalletRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(wallet: CreatedWalletEntity): Promise<void> {
    await this.dataSource.getRepository(CreatedWalletEntity).insert(wallet);
  }

  /** The account's record of an address it created (EVM addresses compared case-insensitively). */
  findForAccount(accountId: string, address: string): Promise<CreatedWalletEntity | null> {
    return this.dataSource
      .getRepository(CreatedWalletEntity)
      .createQueryBuilder('wallet')
      .where('wallet.account_id = :accountId', { accountId })
      .andWhere(
        `(wallet.address = :address OR (wallet.address LIKE '0x%' AND lower(wallet.address) = lower(:address)))`,
        { address },
      )
      .orderBy('wallet.created_at', 'ASC')
      .getOne();
  }
}
