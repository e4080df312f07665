import { Injectable } from '@nestjs/common';
import { DataSource, MoreThan, type EntityManager } from 'typeorm';
import { SessionEntity } from '../entities';

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

  async deleteByTokenHash(tokenHash: string): Promise<void> {
    await this.dataSource.getRepository(SessionEntity).delete({ tokenHash });
  }
}
