import { describeBreak, verifyAuditLog } from './audit/audit-verification';
import { runDatabaseCli } from './database-cli';
import { AuditEventRepository } from './repositories/audit-event.repository';

/** `npm run audit:verify`: exit 0 when every account's audit chain holds, 1 on a break. */
runDatabaseCli('Audit verification failed', async (dataSource) => {
  const result = await verifyAuditLog(new AuditEventRepository(dataSource));
  for (const found of result.breaks) console.error(`Broken audit chain: ${describeBreak(found)}`);
  console.log(
    `Audit log: ${result.entries} entries of ${result.accounts} accounts checked, ` +
      `${result.breaks.length} broken chain(s).`,
  );
  return result.breaks.length ? 1 : 0;
});
