import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

declare const brand: unique symbol;

/**
 * Where a repository's queries run: most often a transaction in progress (UnitOfWork.run), and
 * what repositories write through it then commits with it or not at all. A scope from outside
 * any transaction (OperationRepository.outsideTransaction()) commits each statement on its own; a wallet
 * session's scope runs on the connection holding that wallet's send lock.
 *
 * Opaque: outside libs/database it has no members, so the domain can only hand it on to
 * repositories; what is behind it (a TypeORM EntityManager) stays in this lib.
 */
export type WorkScope = { readonly [brand]: 'WorkScope' };

/** The manager behind a scope. Internal to libs/database: the index does not export it. */
export function managerOf(scope: WorkScope): EntityManager {
  return scope as unknown as EntityManager;
}

/** A manager as a scope. Internal to libs/database: the index does not export it. */
export function scopeOf(manager: EntityManager): WorkScope {
  return manager as unknown as WorkScope;
}

/** The scope of no transaction: each statement through it commits on its own. */
export function outsideTransaction(dataSource: DataSource): WorkScope {
  return scopeOf(dataSource.manager);
}

/**
 * What services need of the connection itself, so that none holds the DataSource: writes of
 * several repositories in one transaction, and a round trip for readiness and health probes.
 */
@Injectable()
export class UnitOfWork {
  constructor(private readonly dataSource: DataSource) {}

  /** Runs `work` in one transaction: what it writes through `scope` commits, or none of it. */
  run<T>(work: (scope: WorkScope) => Promise<T>): Promise<T> {
    return this.dataSource.transaction((manager) => work(scopeOf(manager)));
  }

  /** One round trip to Postgres; rejects when it cannot be reached. */
  async ping(): Promise<void> {
    await this.dataSource.query('SELECT 1');
  }
}
