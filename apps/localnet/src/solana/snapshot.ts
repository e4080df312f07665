import { existsSync, readFileSync } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Ledger, SnapshotAccount } from './ledger';

interface SnapshotFile {
  version: 1;
  slot: number;
  accounts: {
    address: string;
    lamports: string;
    owner: string;
    executable: boolean;
    rentEpoch: string;
    data: string;
  }[];
}

/** Restores accounts and the slot from `file`, if it exists. Returns the number of accounts loaded. */
export function loadSnapshot(ledger: Ledger, file: string): number {
  if (!existsSync(file)) return 0;
  const snapshot = JSON.parse(readFileSync(file, 'utf8')) as SnapshotFile;
  if (snapshot.version !== 1)
    throw new Error(`unsupported snapshot version ${String(snapshot.version)} in ${file}`);
  ledger.importAccounts(
    snapshot.accounts.map((a): SnapshotAccount => ({
      address: a.address,
      lamports: BigInt(a.lamports),
      owner: a.owner,
      executable: a.executable,
      rentEpoch: BigInt(a.rentEpoch),
      data: Buffer.from(a.data, 'base64'),
    })),
  );
  if (snapshot.slot > ledger.slot) ledger.setSlot(snapshot.slot + 1);
  return snapshot.accounts.length;
}

export async function saveSnapshot(ledger: Ledger, file: string): Promise<void> {
  const snapshot: SnapshotFile = {
    version: 1,
    slot: ledger.slot,
    accounts: ledger.exportAccounts().map((a) => ({
      address: a.address,
      lamports: a.lamports.toString(),
      owner: a.owner,
      executable: a.executable,
      rentEpoch: a.rentEpoch.toString(),
      data: Buffer.from(a.data).toString('base64'),
    })),
  };
  await mkdir(dirname(file), { recursive: true });
  // Write then rename, so a crash mid-write never leaves a truncated snapshot.
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, JSON.stringify(snapshot));
  await rename(temporary, file);
}

/** Saves the snapshot every `intervalMs` when accounts changed, and once more on `stop()`. */
export class SnapshotWriter {
  private timer: NodeJS.Timeout | undefined;
  private savedAt = -1;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly ledger: Ledger,
    private readonly file: string,
    private readonly intervalMs = 5_000,
  ) {}

  start(): void {
    this.savedAt = this.ledger.changeCount;
    this.timer = setInterval(() => void this.flush().catch(reportError), this.intervalMs);
    this.timer.unref();
  }

  flush(): Promise<void> {
    this.writing = this.writing.then(async () => {
      const changes = this.ledger.changeCount;
      if (changes === this.savedAt) return;
      await saveSnapshot(this.ledger, this.file);
      this.savedAt = changes;
    });
    return this.writing;
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}

function reportError(err: unknown): void {
  console.error('localnet: could not write the Solana snapshot:', err);
}
