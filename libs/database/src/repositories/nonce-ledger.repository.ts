import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

/** The next nonce of each (chain, wallet), read and written under the wallet's send lock. */
@Injectable()
export class NonceLedgerRepository {
  async read(manager: EntityManager, chainKey: string, address: string): Promise<bigint | null> {
    const rows: { next_nonce: string }[] = await manager.query(
      'SELECT next_nonce FROM nonce_ledger WHERE chain_key = $1 AND address = $2',
      [chainKey, address],
    );
    return rows[0] ? BigInt(rows[0].next_nonce) : null;
  }

  async write(
    manager: EntityManager,
    chainKey: string,
    address: string,
    next: bigint,
  ): Promise<void> {
    await manager.query(
      `INSERT INTO nonce_ledger (chain_key, address, next_nonce, updated_at)
       VALUES ($1, $2, $3, now())
       ON CONFLICT (chain_key, address) DO UPDATE SET next_nonce = $3, updated_at = now()`,
      [chainKey, address, next.toString()],
    );
  }
}
