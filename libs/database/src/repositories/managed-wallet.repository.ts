import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { ChainFamily } from '@app/config';
import { ManagedWalletEntity } from '../entities';

@Injectable()
export class ManagedWalletRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insertMany(manager: EntityManager, wallets: ManagedWalletEntity[]): Promise<void> {
    await manager.getRepository(ManagedWalletEntity).insert(wallets);
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
