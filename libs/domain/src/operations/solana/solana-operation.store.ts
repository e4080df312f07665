import { Injectable } from '@nestjs/common';
import { DataSource, In, IsNull } from 'typeorm';
import { OperationEntity } from '@app/database';
import type { SealedSecret } from '../../security/secret-box';

export interface SolanaSignedTransaction {
  /** base64 wire bytes. */
  signedTx: string;
  /** The fee payer's signature (base58): the transaction id. */
  txHash: string;
  lastValidBlockHeight: bigint;
  /** The new mint's sealed seed, when this signing made it (stored once, never replaced). */
  newMintSecret?: SealedSecret;
}

/**
 * The Solana steps of an operation's state machine, each one conditional UPDATE (a step taken
 * twice, or by two workers, changes nothing). The EVM steps live in OperationRepository; these
 * carry the Solana-only columns.
 */
@Injectable()
export class SolanaOperationStore {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * queued -> signed, with the signed bytes, their blockhash expiry and (first signing only) the
   * new mint's sealed seed. False when another worker got there first.
   */
  async markSigned(id: string, signed: SolanaSignedTransaction): Promise<boolean> {
    const { newMintSecret, ...transaction } = signed;
    const result = await this.dataSource
      .getRepository(OperationEntity)
      .update(
        newMintSecret
          ? { id, status: 'queued', ephemeralSecret: IsNull() }
          : { id, status: 'queued' },
        {
          status: 'signed',
          ...transaction,
          ...(newMintSecret
            ? { ephemeralSecret: newMintSecret.ciphertext, ephemeralKeyId: newMintSecret.keyId }
            : {}),
          updatedAt: new Date(),
        },
      );
    return result.affected === 1;
  }

  /**
   * signed|submitted -> queued, forgetting a transaction that provably never landed and never
   * can (its blockhash expired). Only that very transaction (by signature) is released, so a
   * newer signing by another worker is never undone. The new mint's seed stays.
   */
  async releaseExpired(id: string, txHash: string): Promise<boolean> {
    const result = await this.dataSource.getRepository(OperationEntity).update(
      { id, txHash, status: In(['signed', 'submitted']) },
      {
        status: 'queued',
        signedTx: null,
        txHash: null,
        lastValidBlockHeight: null,
        updatedAt: new Date(),
      },
    );
    return result.affected === 1;
  }
}
