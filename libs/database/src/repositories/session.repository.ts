import { Injectable } from '@nestjs/common';
import { DataSource, MoreThan, type EntityManager } from 'typeorm';
import { SessionEntity } from '../entities';
import { returnedRows } from './returned-rows';

@Injectable()
export class SessionRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(
    session: SessionEntity,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<void> {
    await manager.getRepository(SessionEntity).insert(session);
  }

  findLive(tokenHash: string, now: Date): Promise<SessionEntity | null> {
    return this.dataSource
      .getRepository(SessionEntity)
      .findOneBy({ tokenHash, expiresAt: MoreThan(now) });
  }

  /** Ends a session; returns which one it was, or null when no session had this token. */
  async deleteByTokenHash(
    tokenHash: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<{ id: string; accountId: string } | null> {
    const result: unknown[] = await manager.query(
      `DELETE FROM sessions WHERE token_hash = $1 RETURNING id, account_id AS "accountId"`,
      [tokenHash],
    );
    const [ended] = returnedRows<{ id: string; accountId: string }>(result);
    return ended ?? null;
  }
}
