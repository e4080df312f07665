import {
  Account,
  Clock,
  FailedTransactionMetadata,
  LiteSvm,
  type SlotHashInput,
} from 'litesvm/dist/internal';
import bs58 from 'bs58';
import { createHash } from 'node:crypto';
import { BlockhashTable } from './blockhash-table';
import { Faucet } from './faucet';
import { PriorityFeeTable } from './priority-fee-table';
import { resolveAccountKeys, type ResolvedKeys } from './account-keys';
import type {
  AccountState,
  ExecutionDetails,
  LedgerListener,
  SimulationResult,
  SubmitResult,
  TransactionRecord,
} from './ledger.types';
import { EMPTY_DETAILS } from './ledger.types';
import { SignatureStore } from './signature-store';
import { toAccountState, toDetails } from './litesvm.mapper';
import { readBalances } from './token-balances';
import {
  BLOCKHASH_NOT_FOUND,
  mapTransactionError,
  TransactionRefused,
  type MappedTransactionError,
} from './transaction-error.mapper';
import {
  computeFee,
  decodeBytes,
  readComputeBudget,
  SYSTEM_PROGRAM,
  type WireTransaction,
} from './wire-transaction.decoder';

/** Blocks a blockhash stays valid for, as on mainnet. */
export const MAX_PROCESSING_AGE = 150;
const RECORD_CAPACITY = 100_000;
const MAX_SLOT_HASHES = 512;
const FAUCET_LAMPORTS = 1_000_000_000_000_000_000n;
const RENT_EXEMPT_EPOCH = 18_446_744_073_709_551_615n;
const NONCE_ACCOUNT_SIZE = 80;
const NON_SNAPSHOT_OWNERS = new Set([
  'NativeLoader1111111111111111111111111111111',
  'Sysvar1111111111111111111111111111111111111',
]);
const UPGRADEABLE_LOADER = 'BPFLoaderUpgradeab1e11111111111111111111111';

export interface LedgerOptions {
  slotMs: number;
  /**
   * As on a validator: a transaction runs when it arrives (its effects show at once, as at
   * `processed`), but it lands in the current slot's block, published when the slot ends: its
   * signature status, history and notifications appear then. Off: each transaction is final the
   * moment it runs.
   */
  landAtSlotBoundary?: boolean;
}

interface PendingTransaction {
  record: TransactionRecord;
  writableKeys: string[];
}

export interface SnapshotAccount extends AccountState {
  address: string;
}

/**
 * The chain: litesvm plus what a validator adds around it — slots on a clock, a blockhash per
 * slot that stays valid for 150 blocks, signature statuses and history, duplicate detection.
 */
export class Ledger {
  readonly genesisHash = bs58.encode(
    createHash('sha256').update('asset-issuance-engine localnet').digest(),
  );
  private readonly svm = new LiteSvm();
  private readonly blockhashes = new BlockhashTable(MAX_PROCESSING_AGE);
  private readonly store = new SignatureStore(RECORD_CAPACITY, MAX_PROCESSING_AGE + 1);
  private readonly faucet = new Faucet();
  private readonly listeners: LedgerListener[] = [];
  private readonly knownAddresses = new Set<string>();
  private readonly priorityFees = new PriorityFeeTable();
  private readonly slotHashes: SlotHashInput[] = [];
  private readonly slotsPerEpoch: number;
  /** With landAtSlotBoundary: the current slot's block, in arrival order, until the slot ends. */
  private readonly openBlock = new Map<string, PendingTransaction>();
  private currentSlot = 0;
  private transactions = 0;
  private changes = 0;

  constructor(private readonly opts: LedgerOptions) {
    // The blockhash table below decides validity: litesvm alone only accepts its latest blockhash.
    this.svm.setBlockhashCheck(false);
    // Duplicates are refused by the signature store; litesvm's own history would also keep a
    // transaction whose failed preflight was undone from ever being sent again.
    this.svm.setTransactionHistory(0n);
    this.slotsPerEpoch = Number(this.svm.getEpochSchedule().slotsPerEpoch);
    this.applyClock();
    this.issueBlockhash();
  }

  get slot(): number {
    return this.currentSlot;
  }

  /** No slot is ever skipped here, so block height equals slot. */
  get blockHeight(): number {
    return this.currentSlot;
  }

  get transactionCount(): number {
    return this.transactions;
  }

  /** Grows with every change to accounts; the snapshot writer compares it. */
  get changeCount(): number {
    return this.changes;
  }

  get epochSchedule(): { slotsPerEpoch: number } {
    return { slotsPerEpoch: this.slotsPerEpoch };
  }

  addListener(listener: LedgerListener): () => void {
    this.listeners.push(listener);
    return () => {
      const index = this.listeners.indexOf(listener);
      if (index >= 0) this.listeners.splice(index, 1);
    };
  }

  advanceSlot(): void {
    this.publishBlock();
    this.currentSlot++;
    this.applyClock();
    this.svm.expireBlockhash();
    this.issueBlockhash();
    this.blockhashes.prune(this.currentSlot);
    this.priorityFees.prune(this.currentSlot - MAX_PROCESSING_AGE + 1);
    this.notify((listener) => listener.onSlot?.(this.currentSlot));
  }

  /** Jumps to a slot (restoring a snapshot); blockhashes issued before stay in the table. */
  setSlot(slot: number): void {
    this.currentSlot = slot;
    this.applyClock();
    this.svm.expireBlockhash();
    this.issueBlockhash();
  }

  latestBlockhash(): { blockhash: string; lastValidBlockHeight: number } {
    return this.blockhashes.latest();
  }

  isBlockhashValid(blockhash: string): boolean {
    return this.blockhashes.isValid(blockhash, this.blockHeight);
  }

  blockTime(slot: number): number {
    return Math.floor((Date.now() - (this.currentSlot - slot) * this.opts.slotMs) / 1000);
  }

  minimumBalanceForRentExemption(dataLength: number): bigint {
    return this.svm.minimumBalanceForRentExemption(BigInt(dataLength));
  }

  getAccount(address: string): AccountState | null {
    return toAccountState(this.svm.getAccount(bs58.decode(address)));
  }

  getBalance(address: string): bigint {
    return this.svm.getBalance(bs58.decode(address)) ?? 0n;
  }

  getProgramAccounts(programId: string): { address: string; account: AccountState }[] {
    const result: { address: string; account: AccountState }[] = [];
    for (const entry of this.svm.getProgramAccounts(bs58.decode(programId))) {
      const account = toAccountState(entry.account());
      if (account) result.push({ address: bs58.encode(entry.address), account });
    }
    return result;
  }

  getTransaction(signature: string): TransactionRecord | undefined {
    return this.store.get(signature);
  }

  signaturesForAddress(address: string): TransactionRecord[] {
    return this.store.signaturesFor(address);
  }

  /**
   * Per recent slot, the compute-unit price it took to land there: the lowest paid in the slot,
   * or, given accounts, the highest of that and the lowest paid by the slot's transactions
   * writing each of them (0 where nothing landed).
   */
  recentPrioritizationFees(accounts: readonly string[] = []): {
    slot: number;
    prioritizationFee: number;
  }[] {
    const fees: { slot: number; prioritizationFee: number }[] = [];
    for (
      let slot = Math.max(0, this.currentSlot - MAX_PROCESSING_AGE + 1);
      slot <= this.currentSlot;
      slot++
    ) {
      fees.push({ slot, prioritizationFee: Number(this.priorityFees.feeAt(slot, accounts)) });
    }
    return fees;
  }

  feeFor(
    tx: Pick<WireTransaction, 'header' | 'staticAccounts' | 'instructions' | 'recentBlockhash'>,
  ): bigint | null {
    return this.isBlockhashValid(tx.recentBlockhash) ? computeFee(tx) : null;
  }

  submit(tx: WireTransaction, opts: { skipPreflight: boolean }): SubmitResult {
    const known = this.store.get(tx.signature) ?? this.openBlock.get(tx.signature)?.record;
    if (known) return { status: 'duplicate', record: known };
    if (!this.hasValidLifetime(tx)) {
      return opts.skipPreflight
        ? { status: 'dropped', signature: tx.signature }
        : { status: 'rejected', simulation: failedSimulation(BLOCKHASH_NOT_FOUND, tx) };
    }
    return this.execute(tx, { preflight: !opts.skipPreflight });
  }

  simulate(
    tx: WireTransaction,
    opts: { sigVerify: boolean; replaceRecentBlockhash: boolean; accounts?: string[] },
  ): SimulationResult {
    if (!opts.replaceRecentBlockhash && !this.hasValidLifetime(tx))
      return failedSimulation(BLOCKHASH_NOT_FOUND, tx);
    let keys: ResolvedKeys;
    try {
      keys = resolveAccountKeys(tx, (address) => this.getAccount(address));
    } catch (err) {
      if (!(err instanceof TransactionRefused)) throw err;
      return failedSimulation(err.error, tx);
    }
    if (!opts.sigVerify) this.svm.setSigverify(false);
    let result;
    try {
      result =
        tx.version === 'legacy'
          ? this.svm.simulateLegacyTransaction(tx.bytes)
          : this.svm.simulateVersionedTransaction(tx.bytes);
    } finally {
      if (!opts.sigVerify) this.svm.setSigverify(true);
    }
    const requested = opts.accounts ?? [];
    if (result instanceof FailedTransactionMetadata) {
      const mapped = mapTransactionError(result);
      return {
        accountKeys: keys.accountKeys,
        err: mapped.json,
        errMessage: mapped.message,
        details: toDetails(result.meta()),
        fee: computeFee(tx),
        postAccounts: requested.map(() => null),
      };
    }
    const post = new Map<string, AccountState | null>();
    for (const entry of result.postAccounts())
      post.set(bs58.encode(entry.address), toAccountState(entry.account()));
    return {
      accountKeys: keys.accountKeys,
      err: null,
      errMessage: null,
      details: toDetails(result.meta()),
      fee: computeFee(tx),
      postAccounts: requested.map((address) =>
        post.has(address) ? (post.get(address) ?? null) : this.getAccount(address),
      ),
    };
  }

  airdrop(to: string, lamports: bigint): string {
    this.topUpFaucet(lamports);
    // Identical airdrops in one slot would share a signature: use an older, still valid blockhash.
    for (const blockhash of this.blockhashes.newestFirst()) {
      const { signature, bytes } = this.faucet.transfer(to, lamports, blockhash);
      if (this.store.has(signature) || this.openBlock.has(signature)) continue;
      this.submit(decodeBytes(bytes), { skipPreflight: true });
      return signature;
    }
    throw new Error('too many identical airdrops in the current blockhash window');
  }

  /**
   * Sets an account's lamports outright, as anvil_setBalance does on EVM: its owner, data and
   * flags stay; a missing account becomes an empty system account. Tests drain and refund with it.
   */
  setLamports(address: string, lamports: bigint): void {
    const key = bs58.decode(address);
    const current = this.svm.getAccount(key);
    this.svm.setAccount(
      key,
      current
        ? new Account(
            lamports,
            current.data(),
            current.owner(),
            current.executable(),
            current.rentEpoch(),
          )
        : new Account(
            lamports,
            new Uint8Array(0),
            bs58.decode(SYSTEM_PROGRAM),
            false,
            RENT_EXEMPT_EPOCH,
          ),
    );
    this.knownAddresses.add(address);
    this.changes++;
  }

  /** Accounts touched through the RPC that a restart should bring back (not programs nor sysvars). */
  exportAccounts(): SnapshotAccount[] {
    const accounts: SnapshotAccount[] = [];
    for (const address of this.knownAddresses) {
      const account = this.getAccount(address);
      if (!account || NON_SNAPSHOT_OWNERS.has(account.owner)) continue;
      if (account.executable && account.owner !== UPGRADEABLE_LOADER) continue;
      accounts.push({ address, ...account });
    }
    return accounts;
  }

  importAccounts(accounts: SnapshotAccount[]): void {
    for (const { address, lamports, data, owner, executable, rentEpoch } of accounts) {
      this.svm.setAccount(
        bs58.decode(address),
        new Account(lamports, data, bs58.decode(owner), executable, rentEpoch),
      );
      this.knownAddresses.add(address);
    }
    this.changes++;
  }

  /**
   * Runs the transaction once. With preflight, a failure is undone (the fee given back) and
   * reported as a refused preflight: the same outcome as simulating first, at half the cost.
   */
  private execute(tx: WireTransaction, opts: { preflight: boolean }): SubmitResult {
    let keys: ResolvedKeys;
    try {
      keys = resolveAccountKeys(tx, (address) => this.getAccount(address));
    } catch (err) {
      if (!(err instanceof TransactionRefused)) throw err;
      const { error } = err;
      return opts.preflight
        ? { status: 'rejected', simulation: failedSimulation(error, tx) }
        : { status: 'dropped', signature: tx.signature };
    }
    const readAccounts = () => readBalances(tx, keys, this.svm);
    const before = readAccounts();
    const undo = opts.preflight ? this.captureFeeAccounts(tx, keys) : undefined;
    const result =
      tx.version === 'legacy'
        ? this.svm.sendLegacyTransaction(tx.bytes)
        : this.svm.sendVersionedTransaction(tx.bytes);
    const after = readAccounts();

    if (result instanceof FailedTransactionMetadata) {
      const error = mapTransactionError(result);
      // No fee charged: refused before execution (bad signature, unfunded payer...). A validator
      // drops such a transaction; it never lands.
      const charged = after.lamports[0] !== before.lamports[0];
      if (undo || !charged) {
        if (charged) undo?.();
        if (!opts.preflight) return { status: 'dropped', signature: tx.signature };
        const simulation: SimulationResult = {
          accountKeys: keys.accountKeys,
          err: error.json,
          errMessage: error.message,
          details: toDetails(result.meta()),
          fee: computeFee(tx),
          postAccounts: [],
        };
        return { status: 'rejected', simulation };
      }
    }

    const failed = result instanceof FailedTransactionMetadata;
    const meta = failed ? result.meta() : result;
    let details: ExecutionDetails | undefined;
    const record: TransactionRecord = {
      signature: tx.signature,
      slot: this.currentSlot,
      blockTime: Math.floor(Date.now() / 1000),
      tx,
      accountKeys: keys.accountKeys,
      loadedAddresses: keys.loadedAddresses,
      err: failed ? mapTransactionError(result).json : null,
      fee: computeFee(tx),
      preBalances: before.lamports,
      postBalances: after.lamports,
      preTokenBalances: before.tokens,
      postTokenBalances: after.tokens,
      details: () => (details ??= toDetails(meta)),
    };
    this.transactions++;
    this.changes++;
    for (const address of keys.accountKeys) this.knownAddresses.add(address);
    const writableKeys = keys.accountKeys.filter((_, i) => keys.writable[i]);
    this.priorityFees.note(
      this.currentSlot,
      readComputeBudget(tx).microLamportsPerUnit,
      writableKeys,
    );
    if (this.opts.landAtSlotBoundary) this.openBlock.set(tx.signature, { record, writableKeys });
    else this.land({ record, writableKeys });
    return { status: 'landed', record };
  }

  private land({ record, writableKeys }: PendingTransaction): void {
    this.store.add(record, this.currentSlot);
    this.notify((listener) => listener.onTransaction?.(record, writableKeys));
  }

  /** The slot ends: its block's transactions land, in the order they ran. */
  private publishBlock(): void {
    for (const pending of this.openBlock.values()) this.land(pending);
    this.openBlock.clear();
  }

  /** A failed transaction changes only the fee payer and, with a durable nonce, the nonce account. */
  private captureFeeAccounts(tx: WireTransaction, keys: ResolvedKeys): () => void {
    const indexes = [0];
    if (this.usesCurrentDurableNonce(tx)) indexes.push(tx.instructions[0].accounts[0]);
    const saved = indexes.map((i) => ({
      key: keys.keyBytes[i],
      account: this.svm.getAccount(keys.keyBytes[i]),
    }));
    return () => {
      for (const { key, account } of saved) if (account) this.svm.setAccount(key, account);
    };
  }

  /** A failing subscriber must not fail the transaction or stop the clock. */
  private notify(call: (listener: LedgerListener) => void): void {
    for (const listener of this.listeners) {
      try {
        call(listener);
      } catch (err) {
        console.error('localnet: a ledger listener failed:', err);
      }
    }
  }

  private hasValidLifetime(tx: WireTransaction): boolean {
    return this.isBlockhashValid(tx.recentBlockhash) || this.usesCurrentDurableNonce(tx);
  }

  /** A durable-nonce transaction: first instruction AdvanceNonceAccount, nonce account holding the blockhash. */
  private usesCurrentDurableNonce(tx: WireTransaction): boolean {
    const first = tx.instructions[0];
    if (!first || tx.staticAccounts[first.programIdIndex] !== SYSTEM_PROGRAM) return false;
    if (first.data.length < 4 || first.data[0] !== 4 || first.data[1] !== 0) return false;
    const nonceAddress = tx.staticAccounts[first.accounts[0]];
    if (!nonceAddress) return false;
    const nonce = this.getAccount(nonceAddress);
    if (!nonce || nonce.owner !== SYSTEM_PROGRAM || nonce.data.length !== NONCE_ACCOUNT_SIZE)
      return false;
    return bs58.encode(nonce.data.subarray(40, 72)) === tx.recentBlockhash;
  }

  private topUpFaucet(lamports: bigint): void {
    if (lamports > FAUCET_LAMPORTS / 10n) throw new RangeError('airdrop too large');
    const balance = this.svm.getBalance(this.faucet.addressBytes) ?? 0n;
    if (balance >= lamports + 1_000_000_000n) return;
    this.svm.setAccount(
      this.faucet.addressBytes,
      new Account(
        FAUCET_LAMPORTS,
        new Uint8Array(0),
        bs58.decode(SYSTEM_PROGRAM),
        false,
        RENT_EXEMPT_EPOCH,
      ),
    );
  }

  /**
   * Records the slot's blockhash, and lists the slot in the SlotHashes sysvar (address lookup
   * tables are derived from a recent slot). The current slot is listed too: every slot here is
   * final at once, so clients pass it as "recent".
   */
  private issueBlockhash(): void {
    const hash = this.svm.latestBlockhash();
    this.blockhashes.issue(hash, this.currentSlot);
    this.slotHashes.unshift({ slot: BigInt(this.currentSlot), hash });
    if (this.slotHashes.length > MAX_SLOT_HASHES) this.slotHashes.pop();
    this.svm.setSlotHashes(this.slotHashes);
  }

  private applyClock(): void {
    const epoch = BigInt(Math.floor(this.currentSlot / this.slotsPerEpoch));
    const now = BigInt(Math.floor(Date.now() / 1000));
    this.svm.setClock(new Clock(BigInt(this.currentSlot), now, epoch, epoch + 1n, now));
  }
}

function failedSimulation(error: MappedTransactionError, tx: WireTransaction): SimulationResult {
  return {
    accountKeys: tx.staticAccounts,
    err: error.json,
    errMessage: error.message,
    details: EMPTY_DETAILS,
    fee: computeFee(tx),
    postAccounts: [],
  };
}
