import { queryDatabase } from './chain-reads';
import type { ServiceProcess } from './service-process';

export interface OperationRow {
  status: string;
  tx_hash: string | null;
  nonce: string | null;
}

/** An operation's whole row, read straight from the service's database. */
export async function operationRow<T extends { status: string } = OperationRow>(
  databaseUrl: string,
  id: string,
): Promise<T> {
  const [row] = await queryDatabase<Record<string, unknown>>(
    databaseUrl,
    'SELECT * FROM operations WHERE id = $1',
    [id],
  );
  if (!row) throw new Error(`No operation ${id}`);
  return row as unknown as T;
}

/** Polls the operation's row until it has the status (bounded). */
export async function waitForStatus(
  databaseUrl: string,
  id: string,
  status: string,
  timeoutMs = 60_000,
): Promise<OperationRow> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const row = await operationRow(databaseUrl, id);
    if (row.status === status) return row;
    if (Date.now() > deadline) throw new Error(`operation ${id} is ${row.status}, not ${status}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Resolves when the process has exited (at once if it already has). */
export function waitForExit(service: ServiceProcess): Promise<void> {
  return new Promise((resolve) => {
    if (service.process.exitCode !== null || service.process.signalCode !== null) resolve();
    else service.process.once('exit', () => resolve());
  });
}
