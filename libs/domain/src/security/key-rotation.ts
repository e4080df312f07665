import {
  AuditEventRepository,
  SealedSecretsRepository,
  UnitOfWork,
  type SealedRow,
  type SealedWallet,
} from '@app/database';
import { SecretBox } from './secret-box';

/** Rows a transaction of the rotation takes at most. */
export const ROTATION_BATCH = 200;

export interface RotationProgress {
  wallets: number;
  newMintSecrets: number;
  webhookEndpoints: number;
}

export interface RotationResult extends RotationProgress {
  /** The master key everything is now under. */
  keyId: string;
  /** Stored secrets still under each other key once done (written meanwhile by a process whose
   * MASTER_KEY_ID is still an old key): a key may leave MASTER_KEYS once it has none. */
  stillUnder: Map<string, number>;
}

/**
 * `npm run keys:rotate`: every stored secret brought under the active master key (MASTER_KEY_ID),
 * online. Managed wallets' data keys are wrapped again (their keys untouched); wallets sealed
 * before data keys are moved to one; operations' new mint keypairs and webhook secrets are sealed
 * again. A batch at a time, each one transaction under row locks (SKIP LOCKED), so it runs beside
 * the service: a worker that reads a wallet reads it before or after, whole, and knows both keys
 * (MASTER_KEYS). Resumable: a crash loses one uncommitted batch, and a second run takes up what
 * is left. Each account whose wallets were wrapped again gets a `managed_key.rewrapped` audit
 * entry in the same transaction.
 */
export class KeyRotation {
  constructor(
    private readonly box: SecretBox,
    private readonly sealed: SealedSecretsRepository,
    private readonly audit: AuditEventRepository,
    private readonly work: UnitOfWork,
    private readonly batchSize = ROTATION_BATCH,
  ) {}

  async run(
    onBatch: (done: RotationProgress) => void | Promise<void> = () => undefined,
  ): Promise<RotationResult> {
    const done: RotationProgress = { wallets: 0, newMintSecrets: 0, webhookEndpoints: 0 };
    const steps: [keyof RotationProgress, () => Promise<number>][] = [
      ['wallets', () => this.walletBatch()],
      ['newMintSecrets', () => this.newMintBatch()],
      ['webhookEndpoints', () => this.endpointBatch()],
    ];
    for (const [counter, batch] of steps) {
      for (let moved = await batch(); moved > 0; moved = await batch()) {
        done[counter] += moved;
        await onBatch({ ...done });
      }
    }
    const usage = await this.sealed.usageByKey();
    usage.delete(this.box.activeKeyId);
    return { ...done, keyId: this.box.activeKeyId, stillUnder: usage };
  }

  private walletBatch(): Promise<number> {
    const to = this.box.activeKeyId;
    return this.work.run(async (scope) => {
      const wallets = await this.sealed.walletsNotUnder(scope, to, this.batchSize);
      const fromByAccount = new Map<string, Set<string>>();
      for (const wallet of wallets) {
        await this.sealed.updateWallet(scope, wallet.id, this.rewrapped(wallet));
        const from = fromByAccount.get(wallet.accountId) ?? new Set<string>();
        fromByAccount.set(wallet.accountId, from.add(wallet.keyId));
      }
      for (const [accountId, from] of fromByAccount) {
        await this.audit.record(
          {
            accountId,
            type: 'managed_key.rewrapped',
            details: { from_key_id: [...from].sort().join(','), to_key_id: to },
          },
          scope,
        );
      }
      return wallets.length;
    });
  }

  /** The wallet's data key under the active master key; a wallet without one is given one. */
  private rewrapped(wallet: SealedWallet): {
    secretCiphertext: Buffer;
    dataKey: Buffer;
    keyId: string;
  } {
    if (wallet.dataKey) {
      const wrapped = this.box.reseal(
        { ciphertext: wallet.dataKey, keyId: wallet.keyId },
        wallet.address,
      );
      return {
        secretCiphertext: wallet.secretCiphertext,
        dataKey: wrapped.ciphertext,
        keyId: wrapped.keyId,
      };
    }
    const secret = this.box.open(
      { ciphertext: wallet.secretCiphertext, keyId: wallet.keyId },
      wallet.address,
    );
    try {
      const enveloped = this.box.sealEnveloped(secret, wallet.address);
      return {
        secretCiphertext: enveloped.ciphertext,
        dataKey: enveloped.wrappedKey,
        keyId: enveloped.keyId,
      };
    } finally {
      secret.fill(0);
    }
  }

  private newMintBatch(): Promise<number> {
    return this.work.run(async (scope) => {
      const rows = await this.sealed.newMintSecretsNotUnder(
        scope,
        this.box.activeKeyId,
        this.batchSize,
      );
      // A new mint's keypair is bound to its operation's id (solana-lifecycle).
      for (const row of rows) await this.sealed.updateNewMintSecret(scope, this.resealed(row));
      return rows.length;
    });
  }

  private endpointBatch(): Promise<number> {
    return this.work.run(async (scope) => {
      const endpoints = await this.sealed.endpointsNotUnder(
        scope,
        this.box.activeKeyId,
        this.batchSize,
      );
      // A webhook secret is bound to its endpoint's id (webhook-endpoints.service).
      for (const endpoint of endpoints) {
        await this.sealed.updateEndpoint(
          scope,
          endpoint.id,
          this.resealed(endpoint.secret),
          endpoint.previous && this.resealed(endpoint.previous),
        );
      }
      return endpoints.length;
    });
  }

  /** A row's secret, bound to the row's id, sealed again under the active key (if it is not). */
  private resealed(row: SealedRow): SealedRow {
    if (row.keyId === this.box.activeKeyId) return row;
    const sealed = this.box.reseal({ ciphertext: row.ciphertext, keyId: row.keyId }, row.id);
    return { id: row.id, ciphertext: sealed.ciphertext, keyId: sealed.keyId };
  }
}
