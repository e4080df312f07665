import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { AppError, KeyedGroupWriters, METRICS, clamp, type AssetOutcome } from '@app/common';
import {
  SolanaAdapter,
  ed25519Signer,
  instructionPrograms,
  isSolanaFundsError,
  needsNewMint,
  newEd25519Seed,
  planSolanaTransaction,
  reached,
  localSolanaKey,
  mostLamportsAsked,
  signWireWith,
  nodeRefusal,
  solanaErrorToAppError,
  solanaInsufficientFunds,
  solanaOutcome,
  wireSigners,
  type Ed25519Signer,
  type SignatureStatus,
  type SolanaNetworkDefinition,
  type TransactionErrorJson,
} from '@app/chains';
import {
  OperationRepository,
  SolanaOperationRepository,
  type OperationEntity,
  type SolanaSigning,
} from '@app/database';
import { SecretBox, type SealedSecret } from '../../security/secret-box';
import { FaultInjection } from '../fault-injection';
import { WalletKeys } from '../wallet-keys';
import { CheckLater } from '../check-later';
import { RetryLater } from '../retry-later';
import { RoundMemory } from '../round-memory';
import type { CheckVerdict, TransactionLifecycle } from '../transaction-lifecycle';
import { SigningPolicies } from '../../policies/signing-policies';
import { intentViolation, type PolicyViolation } from '../../policies/signing-policy';

const STATUS_POLL_MS = [0, 10, 20, 40, 80, 160, 320, 500];
/** How often, while a signature has no status, the blockhash's expiry is checked. */
const EXPIRY_CHECK_MS = 1_000;
/** A parked check comes back after about a slot's worth of polls. */
const PARK_MS = 500;
/** Signings (or submissions) stored in one statement at most. */
const MAX_WRITES_A_STATEMENT = 64;

interface NewMint {
  signer: Ed25519Signer;
  /** Set when the seed was made now and must be stored with the first signature. */
  toStore?: SealedSecret;
}

/** What following a signature keeps from one round of its check to the next. */
interface SignatureWait {
  /** When this process last sent its bytes (0: never). */
  lastSentAt: number;
  expiryCheckedAt: number;
}

/** What following a signature found; `confirmed` gets its outcome in `check`. */
type Verdict = Exclude<CheckVerdict, { kind: 'confirmed' }> | { kind: 'confirmed' };

/**
 * The Solana family's transaction lifecycle (see TransactionLifecycle), exactly once:
 *
 * - The signed transaction, its signature and its blockhash's lastValidBlockHeight are stored
 *   before anything is sent; the mint account an operation creates gets its keypair once, sealed
 *   in the operation row, so every signing of the operation creates the same account.
 * - Recovery looks at the signature's status first. Landed: adopted, success or failure. Not
 *   landed and the blockhash still valid: the same bytes are sent again. Only when the chain's
 *   block height (confirmed) is past lastValidBlockHeight and the signature still has no status
 *   is the operation released and signed anew.
 */
@Injectable()
export class SolanaLifecycle implements TransactionLifecycle<SolanaNetworkDefinition> {
  private readonly logger = new Logger(SolanaLifecycle.name);
  private readonly waits = new RoundMemory<SignatureWait>();
  /**
   * An account's signings (and submissions) arriving while one of its writes is under way are
   * stored together: one statement, one turn of its audit chain's (or event feed's) lock and one
   * commit for many. A writer per account never holds two accounts' locks at once.
   */
  private readonly signings = new KeyedGroupWriters<SolanaSigning, boolean>(
    (_account, signings) => this.solanaOperations.markSignedMany(signings),
    MAX_WRITES_A_STATEMENT,
  );
  private readonly submissions = new KeyedGroupWriters<string>(
    (_account, ids) => this.operations.markSubmittedMany(this.operations.outsideTransaction(), ids),
    MAX_WRITES_A_STATEMENT,
  );

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly solana: SolanaAdapter,
    private readonly operations: OperationRepository,
    private readonly solanaOperations: SolanaOperationRepository,
    private readonly keys: WalletKeys,
    private readonly secretBox: SecretBox,
    private readonly faults: FaultInjection,
    private readonly policies: SigningPolicies,
  ) {}

  /** Follows the signature this round; its timers are kept between rounds. */
  check(
    network: SolanaNetworkDefinition,
    operation: OperationEntity,
    sentAfter: number | null,
    roundEnds: number,
  ): Promise<CheckVerdict> {
    return this.waits.round(operation.id, async () => {
      const verdict = await this.follow(network, operation, sentAfter !== null, roundEnds);
      if (verdict.kind !== 'confirmed') return verdict;
      return { kind: 'confirmed', outcome: this.outcome(operation) };
    });
  }

  /**
   * queued -> signed: plans, signs and stores the transaction (its first check sends it).
   * Returns the operation as stored, or null when another worker changed it first.
   */
  async send(
    network: SolanaNetworkDefinition,
    operation: OperationEntity,
  ): Promise<OperationEntity | null> {
    const policy = await this.policies.of(operation.accountId);
    await this.refuseBreach(
      operation,
      intentViolation(policy, network.network, operation.intent, operation.signer),
    );
    const newMint = needsNewMint(operation.intent) ? this.newMintOf(operation) : undefined;
    const planned = await planSolanaTransaction(
      this.solana,
      network,
      operation.signer,
      operation.id,
      operation.intent,
      newMint?.signer.address,
      this.config.solana,
    );
    const signed = await this.keys.withSolanaKey(operation.accountId, (key) =>
      signWireWith(planned.message.bytes, planned.message.signers, [
        key,
        ...(newMint ? [localSolanaKey(newMint.signer)] : []),
      ]),
    );
    if (policy.daily_native_cap?.[network.network] !== undefined) {
      const cost = mostLamportsAsked(signed.wire, planned.fees, await this.solana.rentOf(network));
      const overCap = await this.policies.reserve(operation, policy, network, cost);
      await this.refuseBreach(operation, overCap);
    }
    const stored = {
      signedTx: signed.wire.toString('base64'),
      txHash: signed.signature,
      lastValidBlockHeight: planned.lastValidBlockHeight,
    };
    const claimed = await this.signings.submit(operation.accountId, {
      id: operation.id,
      signed: {
        ...stored,
        newMintSecret: newMint?.toStore,
        newMintAddress: newMint?.signer.address,
        fees: planned.fees,
      },
    });
    if (!claimed) return null;
    this.faults.at('crash-after-sign');
    const sealed = newMint?.toStore;
    return {
      ...operation,
      ...stored,
      status: 'signed',
      ...(sealed ? { newMintSecret: sealed.ciphertext, newMintKeyId: sealed.keyId } : {}),
      ...(newMint ? { newMintAddress: newMint.signer.address } : {}),
    };
  }

  /**
   * A breach of the account's signing policy found before anything is stored: recorded, and
   * thrown (the operation fails with it; the bytes signed, if any, never leave).
   */
  private async refuseBreach(
    operation: OperationEntity,
    violation: PolicyViolation | null,
  ): Promise<void> {
    if (!violation) return;
    await this.policies.violated(operation.accountId, violation, operation.id);
    throw violation;
  }

  /**
   * Follows a signed transaction to a verdict until the round ends: status first, then (not
   * landed) send or re-send the same bytes, and check whether its blockhash has expired. Bytes
   * this run has just signed were never sent, so they go out without asking for their status
   * first. No verdict by the round's end: CheckLater, the next round asking for its status again.
   */
  private async follow(
    network: SolanaNetworkDefinition,
    operation: OperationEntity,
    justSigned: boolean,
    roundEnds: number,
  ): Promise<Verdict> {
    const signature = operation.txHash!;
    const wire = operation.signedTx!;
    const lastValid = operation.lastValidBlockHeight ?? null;
    let accepted = operation.status === 'submitted';
    if (justSigned) this.waits.forget(operation.id);
    const wait = this.waits.of(operation.id, () => ({
      lastSentAt: 0,
      expiryCheckedAt: Date.now(),
    }));

    let unsent = justSigned;
    let attempt = 0;
    do {
      const status = unsent ? null : await this.solana.signatureStatus(network, signature);
      unsent = false;
      if (status) {
        const verdict = this.landed(operation, status);
        if (verdict) return verdict;
        await sleep(this.pollPause(attempt++, roundEnds));
        continue;
      }

      let checkExpiry = Date.now() - wait.expiryCheckedAt >= EXPIRY_CHECK_MS;
      if (
        wait.lastSentAt === 0 ||
        Date.now() - wait.lastSentAt >= this.config.solana.rebroadcastMs
      ) {
        // The first send of these bytes goes through preflight: a transaction that would fail
        // is refused before it costs a fee. Re-sends skip it: the first may have landed since.
        const result = await this.solana.send(network, wire, { preflight: !accepted });
        wait.lastSentAt = Date.now();
        if (result.kind === 'accepted') {
          if (!accepted && operation.status === 'signed') {
            await this.submissions.submit(operation.accountId, operation.id);
            this.faults.at('crash-after-broadcast');
          }
          accepted = true;
          continue; // its status may be there already
        }
        if (result.kind === 'blockhash-not-found') checkExpiry = true;
        if (result.kind === 'refused' && !accepted) {
          // Refused at preflight and never accepted before: no node has these bytes.
          const again = await this.solana.signatureStatus(network, signature);
          if (again) continue;
          return { kind: 'failed', error: await this.refusal(network, operation, wire, result) };
        }
      }

      if (checkExpiry && lastValid !== null) {
        wait.expiryCheckedAt = Date.now();
        if ((await this.solana.blockHeight(network, 'confirmed')) > lastValid) {
          // Past its last valid block: if it has no status now, it never landed and never will.
          if (await this.solana.signatureStatus(network, signature)) continue;
          if (await this.solanaOperations.releaseExpired(operation.id, signature))
            return { kind: 'released', reason: `${signature} expired unlanded` };
          throw new RetryLater(`Operation ${operation.id} moved on under another worker`);
        }
      }
      await sleep(this.pollPause(attempt++, roundEnds));
    } while (Date.now() < roundEnds);
    throw new CheckLater(`No status for ${signature} yet`, PARK_MS);
  }

  /** The pause before the next look at a signature's status: growing, within the round. */
  private pollPause(attempt: number, roundEnds: number): number {
    const pause = STATUS_POLL_MS[Math.min(attempt, STATUS_POLL_MS.length - 1)];
    return clamp(roundEnds - Date.now(), 0, pause);
  }

  /**
   * The error of bytes refused at preflight and never accepted: no node has them, so the
   * operation fails at once. Refused for the fee payer's lack of SOL, it is the 409 naming the
   * wallet, its balance and what the transaction asks.
   */
  private async refusal(
    network: SolanaNetworkDefinition,
    operation: OperationEntity,
    wire: string,
    result: { err: TransactionErrorJson | null; message: string },
  ): Promise<AppError> {
    if (result.err === null) return nodeRefusal(network.network, result.message);
    const programs = programsOf(wire);
    if (isSolanaFundsError(result.err, programs)) {
      METRICS.walletFundsShort.inc({ network: network.network, stage: 'refused-at-send' });
      const bytes = Buffer.from(wire, 'base64');
      return solanaInsufficientFunds(this.solana, network, operation.signer, bytes);
    }
    return solanaErrorToAppError(result.err, programs, operation.intent);
  }

  /**
   * A landed transaction's verdict once its commitment is reached (null: wait). A failure waits
   * too: below that commitment its block may still be dropped, and the bytes land elsewhere.
   */
  private landed(operation: OperationEntity, status: SignatureStatus): Verdict | null {
    if (!reached(status, this.config.solana.commitment)) return null;
    if (status.err === null || status.err === undefined) return { kind: 'confirmed' };
    return {
      kind: 'failed',
      error: solanaErrorToAppError(status.err, programsOf(operation.signedTx!), operation.intent),
    };
  }

  /** The new mint (if any) is the transaction's second signer: no need to open its seed. */
  private outcome(operation: OperationEntity): AssetOutcome {
    const newMint = needsNewMint(operation.intent)
      ? wireSigners(Buffer.from(operation.signedTx!, 'base64'))[1]
      : undefined;
    return solanaOutcome(operation.intent, newMint);
  }

  /** The operation's new mint: its stored seed, or a new one to store with the first signature. */
  private newMintOf(operation: OperationEntity): NewMint {
    if (operation.newMintSecret && operation.newMintKeyId) {
      const seed = this.secretBox.open(
        { ciphertext: operation.newMintSecret, keyId: operation.newMintKeyId },
        operation.id,
      );
      try {
        return { signer: ed25519Signer(seed) };
      } finally {
        seed.fill(0);
      }
    }
    const seed = newEd25519Seed();
    try {
      return { signer: ed25519Signer(seed), toStore: this.secretBox.seal(seed, operation.id) };
    } finally {
      seed.fill(0);
    }
  }
}

function programsOf(wire: string): string[] {
  return instructionPrograms(Buffer.from(wire, 'base64'));
}

function sleep(ms: number): Promise<void> {
  return ms <= 0 ? Promise.resolve() : new Promise((resolve) => setTimeout(resolve, ms));
}
