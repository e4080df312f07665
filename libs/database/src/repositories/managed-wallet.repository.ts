import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { ChainFamily } from '@app/config';
import { ManagedWalletEntity } from '../entities';
import { managerOf, type WorkScope } from '../unit-of-work';

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

  findForAccount(accountId: string, family: ChainFamily): Promise<ManagedWalletEntity | null> {
    return this.dataSource.getRepository(ManagedWalletEntity).findOneBy({ accountId, family });
  }
}
