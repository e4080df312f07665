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
    // With the bytes of the transaction it waits on (they live in `transactions` alone).
    `SELECT o.*, transaction_wire_text(t.chain_key, t.signed_tx) AS signed_tx FROM operations o
       LEFT JOIN transactions t ON t.chain_key = o.chain_key AND t.tx_hash = o.tx_hash
     WHERE o.id = $1`,
    [id],
  );
  if (!row) throw new Error(`No operation ${id}`);
  return row as unknown as T;
}

/** Polls the operation's row until it has the status (bounded). */
export function waitForStatus(
  databaseUrl: string,
  id: string,
  status: string,
  timeoutMs = 60_000,
): Promise<OperationRow> {
  return pollRow<OperationRow>(
    databaseUrl,
    id,
    timeoutMs,
    (row) => row.status === status,
    `not ${status}`,
  );
}

/** Polls the operation's whole row until it is confirmed or failed (bounded). */
export function waitForSettledRow<T extends { status: string }>(
  databaseUrl: string,
  id: string,
  timeoutMs = 60_000,
): Promise<T> {
  const settled = (row: T) => row.status === 'confirmed' || row.status === 'failed';
  return pollRow<T>(databaseUrl, id, timeoutMs, settled, 'not settled');
}

async function pollRow<T extends { status: string }>(
  databaseUrl: string,
  id: string,
  timeoutMs: number,
  done: (row: T) => boolean,
  otherwise: string,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const row = await operationRow<T>(databaseUrl, id);
    if (done(row)) return row;
    if (Date.now() > deadline) throw new Error(`operation ${id} is ${row.status}, ${otherwise}`);
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
