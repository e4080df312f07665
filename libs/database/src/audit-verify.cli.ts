import { loadConfig } from '@app/config';
import { describeBreak, verifyAuditLog } from './audit/audit-verification';
import { createDataSource } from './data-source';
import { AuditEventRepository } from './repositories/audit-event.repository';

/** `npm run audit:verify`: exit 0 when every account's audit chain holds, 1 on a break. */
async function main(): Promise<number> {
  const dataSource = await createDataSource(loadConfig(process.env).databaseUrl).initialize();
  try {
    const result = await verifyAuditLog(new AuditEventRepository(dataSource));
    for (const found of result.breaks) console.error(`Broken audit chain: ${describeBreak(found)}`);
    console.log(
      `Audit log: ${result.entries} entries of ${result.accounts} accounts checked, ` +
        `${result.breaks.length} broken chain(s).`,
    );
    return result.breaks.length ? 1 : 0;
  } finally {
    await dataSource.destroy();
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error('Audit verification failed:', error instanceof Error ? error.message : error);
    process.exitCode = 2;
  },
);
