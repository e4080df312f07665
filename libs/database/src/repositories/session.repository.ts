import { Injectable } from '@nestjs/common';
import { DataSource, MoreThan } from 'typeorm';
import { SessionEntity } from '../entities';

@Injectable()
export class SessionRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(session: SessionEntity): Promise<void> {
    await this.dataSource.getRepository(SessionEntity).insert(session);
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
