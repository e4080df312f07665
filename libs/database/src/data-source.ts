import { DataSource, type DataSourceOptions } from 'typeorm';
import { ENTITIES } from './entities';
import { MIGRATIONS } from './migrations';
import { PreparingClient } from './preparing-client';
import { pgWithPriorityPool } from './query-priority';

export function dataSourceOptions(
  databaseUrl: string,
  poolSize = 10,
  connectTimeoutMs = 5_000,
  preparedStatements = true,
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
    // PreparingClient: a write whose connection could not be made says "nothing accepted"
    // (ConnectPhaseClient), and statements run again and again are prepared once a connection.
    extra: {
      max: poolSize,
      connectionTimeoutMillis: connectTimeoutMs,
      Client: PreparingClient,
      preparedStatements,
    },
  };
}

export function createDataSource(databaseUrl: string, poolSize?: number): DataSource {
  return new DataSource(dataSourceOptions(databaseUrl, poolSize));
}
