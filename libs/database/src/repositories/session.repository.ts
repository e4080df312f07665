import { Injectable } from '@nestjs/common';
import { DataSource, MoreThan } from 'typeorm';
import { SessionEntity } from '../entities';
import { managerOf, outsideTransaction, type WorkScope } from '../unit-of-work';
import { returnedRows } from './returned-rows';

@Injectable()
export class SessionRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(
    session: SessionEntity,
    scope: WorkScope = outsideTransaction(this.dataSource),
  ): Promise<void> {
    await managerOf(scope).getRepository(SessionEntity).insert(session);
  }

  findLive(tokenHash: string, now: Date): Promise<SessionEntity | null> {
    return this.dataSource
      .getRepository(SessionEntity)
      .findOneBy({ tokenHash, expiresAt: MoreThan(now) });
  }

  /** Ends a session; returns which one it was, or null when no session had this token. */
  async deleteByTokenHash(
    tokenHash: string,
    scope: WorkScope = outsideTransaction(this.dataSource),
  ): Promise<{ id: string; accountId: string } | null> {
    const result: unknown[] = await managerOf(scope).query(
      `DELETE FROM sessions WHERE token_hash = $1 RETURNING id, account_id AS "accountId"`,
      [tokenHash],
    );
    const [ended] = returnedRows<{ id: string; accountId: string }>(result);
    return ended ?? null;
  }
}
