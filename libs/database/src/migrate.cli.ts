import { loadConfig } from '@app/config';
import { migrate } from './migrate';

migrate(loadConfig(process.env).databaseUrl).then(
  (applied) => {
    console.log(applied.length ? `Applied: ${applied.join(', ')}` : 'Database is up to date.');
  },
  (error: unknown) => {
    console.error('Migration failed:', error instanceof Error ? error.message : error);
    process.exitCode = 1;
  },
);
