import { DataSource, type DataSourceOptions } from 'typeorm';
import { ConnectPhaseClient } from './connect-phase-client';
import { ENTITIES } from './entities';
import { MIGRATIONS } from './migrations';
import { pgWithPriorityPool } from './query-priority';

export function dataSourceOptions(
  databaseUrl: string,
  poolSize = 10,
  connectTimeoutMs = 5_000,
): DataSourceOptions {
  return {
    type: 'postgres',
    url: databaseUrl,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    synchronize: false,
    migrationsRun: false,
    driver: pgWithPriorityPool,
    // connectionTimeoutMillis bounds both a new connection and the wait for a free pooled one:
    // without it an unreachable (not refusing) database holds every request for good.
    // ConnectPhaseClient: a write whose connection could not be made says "nothing accepted".
    extra: { max: poolSize, connectionTimeoutMillis: connectTimeoutMs, Client: ConnectPhaseClient },
  };
}

export function createDataSource(databaseUrl: string, poolSize?: number): DataSource {
  return new DataSource(dataSourceOptions(databaseUrl, poolSize));
}
