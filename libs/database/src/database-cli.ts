import type { DataSource } from 'typeorm';
import { loadConfig, type AppConfig } from '@app/config';
import { createDataSource } from './data-source';

/**
 * Runs a command-line job against the configured database: `job` answers the exit code; an error
 * prints `<failure>: <message>` and exits 2. The connections (`poolSize`) are closed either way.
 */
export function runDatabaseCli(
  failure: string,
  job: (dataSource: DataSource, config: AppConfig) => Promise<number>,
  poolSize?: number,
): void {
  const run = async (): Promise<number> => {
    const config = loadConfig(process.env);
    const dataSource = await createDataSource(config.databaseUrl, poolSize).initialize();
    try {
      return await job(dataSource, config);
    } finally {
      await dataSource.destroy();
    }
  };
  run().then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      console.error(`${failure}:`, error instanceof Error ? error.message : error);
      process.exitCode = 2;
    },
  );
}
