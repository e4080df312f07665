import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AccountEntity } from '../entities';
import { managerOf, type WorkScope } from '../unit-of-work';

@Injectable()
export class AccountRepository {
  constructor(private readonly dataSource: DataSource) {}

  findById(id: string): Promise<AccountEntity | null> {
    return this.dataSource.getRepository(AccountEntity).findOneBy({ id });
  }

  findByEmail(email: string): Promise<AccountEntity | null> {
    return this.dataSource.getRepository(AccountEntity).findOneBy({ email });
  }

  /** Inserts the account; returns false when the email is already taken. */
  async insert(scope: WorkScope, account: AccountEntity): Promise<boolean> {
    const result = await managerOf(scope)
      .createQueryBuilder()
      .insert()
      .into(AccountEntity)
      .values(account)
      .orIgnore()
      .returning('id')
      .execute();
    return (result.raw as unknown[]).length > 0;
  }
}
