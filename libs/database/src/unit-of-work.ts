import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

/**
 * What services need of the connection itself, so that none holds the DataSource: writes of
 * several repositories in one transaction, and a round trip for readiness and health probes.
 */
@Injectable()
export class UnitOfWork {
  constructor(private readonly dataSource: DataSource) {}

  /** Runs `work` in one transaction: what it writes through `manager` commits, or none of it. */
  run<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  /** One round trip to Postgres; rejects when it cannot be reached. */
  async ping(): Promise<void> {
    await this.dataSource.query('SELECT 1');
  }
}
