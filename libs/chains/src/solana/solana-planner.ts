import {
  ComputeBudgetProgram,
  PACKET_DATA_SIZE,
  PublicKey,
  type TransactionInstruction,
} from '@solana/web3.js';
import { TOKEN_2022_PROGRAM_ID, unpackAccount } from '@solana/spl-token';
import { AppError, boundedText, type AssetIntent, type AssetOutcome } from '@app/common';
import type { SolanaNetworkDefinition } from '../networks/network-definition';
import { isSolanaFundsError, solanaErrorToAppError } from './solana-errors';
import { solanaInsufficientFunds } from './solana-funds';
import type { SolanaAdapter } from './solana.adapter';
import { groupOf, mintOf } from './solana-reads';
import { shortVec, unsignedWire } from './ed25519-signer';
import { compileLegacyMessage, withComputeUnitLimit, type CompiledMessage } from './legacy-message';
import { carrierNonce } from './carrier-nonce';
import { operationMemo } from './operation-memo';
import { priorityFeeFrom, writableAccounts } from './priority-fee';
import {
  UNLIMITED_GROUP_SIZE,
  burnInstructions,
  collectionCreateInstructions,
  itemMintInstructions,
  tokenAccountOf,
  tokenCreateInstructions,
  tokenMintBatchInstructions,
  tokenMintInstructions,
  transferInstructions,
} from './token2022-instructions';
import { tokenMintBatchComputeUnits } from './token-mint-compute';

/** The compute-unit ceiling of a transaction: what simulation runs under. */
export const MAX_COMPUTE_UNITS = 1_400_000;
/** Added to the margin: the compute-budget instructions themselves, and small programs. */
const COMPUTE_UNIT_FLOOR = 1_000;

export interface SolanaSendSettings {
  /** The least compute-unit price (micro-lamports) paid; the network's recent fees raise it. */
  priorityFeeMicroLamports: number;
  /** The most compute-unit price paid, however high the network's recent fees. */
  priorityFeeMaxMicroLamports: number;
  /** Which percentile of the recent per-slot fees of the written accounts to match. */
  priorityFeePercentile: number;
  computeUnitMarginPercent: number;
  /** Fixed limit; when absent the limit is sized by simulation. */
  computeUnitLimit?: number;
}

export interface PlannedTransaction {
  message: CompiledMessage;
  lastValidBlockHeight: bigint;
  /** What it pays beyond the base fee, as stored with the signed transaction. */
  fees: { computeUnitPriceMicroLamports: string; computeUnitLimit: string };
}

/** Operations that create an account: a new mint keypair signs them. */
export function needsNewMint(intent: AssetIntent): boolean {
  return (
    intent.kind === 'token.create' || intent.kind === 'nft.create' || intent.kind === 'nft.mint'
  );
}

/**
 * Turns an intent into a signed-ready Token-2022 transaction. State the chain can tell before
 * anything is signed (balance too low, item burned or not held, collection full) is checked and
 * mapped to the client's error; simulation then sizes the compute-unit limit and refuses what
 * would fail, so a program error is known before anything is sent.
 *
 * The transaction ends with what makes it the operation's own (so no two operations share a
 * signature: `ownInstruction`), and pays the compute-unit price the network's recent fees call
 * for, read at each signing: a re-signing after an expired blockhash is priced anew.
 */
export async function planSolanaTransaction(
  adapter: SolanaAdapter,
  network: SolanaNetworkDefinition,
  signer: string,
  operationId: string,
  intent: AssetIntent,
  newMint: string | undefined,
  settings: SolanaSendSettings,
): Promise<PlannedTransaction> {
  const payer = new PublicKey(signer);
  const { instructions, computeUnits, pricedBy } = await instructionsFor(
    adapter,
    network,
    payer,
    intent,
    newMint,
    { checkGroupSize: settings.computeUnitLimit !== undefined },
  );
  const [blockhash, microLamports] = await Promise.all([
    adapter.latestBlockhash(network),
    computeUnitPrice(
      adapter,
      network,
      pricedBy
        ? [payer, ...pricedBy].map((key) => key.toBase58())
        : writableAccounts(payer, instructions),
      settings,
    ),
  ]);
  const fixed =
    settings.computeUnitLimit ??
    (computeUnits === undefined ? undefined : sizedLimit(computeUnits, settings));
  // Its own instruction is part of what simulation measures, so the sized limit covers it.
  const message = compileLegacyMessage(
    payer,
    blockhash.blockhash,
    framedInstructions(instructions, ownInstruction(intent.kind, operationId), {
      units: fixed ?? MAX_COMPUTE_UNITS,
      microLamports,
    }),
  );
  const length = signedTransactionLength(message);
  if (length > PACKET_DATA_SIZE) {
    // The node would refuse it whenever it is sent: a RangeError fails the operation at once.
    throw new RangeError(
      `the ${intent.kind} transaction is ${length} bytes signed, ` +
        `over Solana's ${PACKET_DATA_SIZE}-byte limit`,
    );
  }
  const planned = (units: number, compiled: CompiledMessage): PlannedTransaction => ({
    message: compiled,
    lastValidBlockHeight: blockhash.lastValidBlockHeight,
    fees: { computeUnitPriceMicroLamports: String(microLamports), computeUnitLimit: String(units) },
  });
  if (fixed !== undefined) return planned(fixed, message);

  const wire = unsignedWire(message.bytes, message.signers.length);
  const simulation = await adapter.simulate(network, wire);
  if (simulation.err !== null) {
    if (isSolanaFundsError(simulation.err, message.programs)) {
      throw await solanaInsufficientFunds(adapter, network, signer, wire);
    }
    throw solanaErrorToAppError(simulation.err, message.programs, intent);
  }
  const units = sizedLimit(simulation.unitsConsumed, settings);
  return planned(units, withComputeUnitLimit(message, units));
}

/** The compute-unit limit for what a transaction consumes: the margin on top, within the ceiling. */
function sizedLimit(unitsConsumed: number, settings: SolanaSendSettings): number {
  return Math.min(
    MAX_COMPUTE_UNITS,
    Math.ceil((unitsConsumed * (100 + settings.computeUnitMarginPercent)) / 100) +
      COMPUTE_UNIT_FLOOR,
  );
}

/**
 * What makes an operation's transaction its own: the memo naming it, which explorers show; for an
 * airdrop's carrier, whose every byte is a recipient's, a nonce in its compute budget instead.
 */
export function ownInstruction(kind: AssetIntent['kind'], operationId: string) {
  return kind === 'token.mintBatch' ? carrierNonce(operationId) : operationMemo(operationId);
}

/**
 * An operation's instructions as its transaction carries them: the compute-unit limit first (so
 * `withComputeUnitLimit` can set it in place), the price when there is one, its own instruction
 * (`ownInstruction`) last.
 */
export function framedInstructions(
  instructions: TransactionInstruction[],
  own: TransactionInstruction,
  budget: { units: number; microLamports: number },
): TransactionInstruction[] {
  const { units, microLamports } = budget;
  return [
    ComputeBudgetProgram.setComputeUnitLimit({ units }),
    ...(microLamports > 0 ? [ComputeBudgetProgram.setComputeUnitPrice({ microLamports })] : []),
    ...instructions,
    own,
  ];
}

/** The size of the wire transaction once signed: its signatures, then the message. */
export function signedTransactionLength(message: CompiledMessage): number {
  const signatures = message.signers.length;
  return shortVec(signatures).length + 64 * signatures + message.bytes.length;
}

/** The compute-unit price; no fee lookup when the cap leaves nothing above the floor. */
async function computeUnitPrice(
  adapter: SolanaAdapter,
  network: SolanaNetworkDefinition,
  writable: string[],
  settings: SolanaSendSettings,
): Promise<number> {
  const policy = {
    floorMicroLamports: settings.priorityFeeMicroLamports,
    maxMicroLamports: settings.priorityFeeMaxMicroLamports,
    percentile: settings.priorityFeePercentile,
  };
  if (policy.maxMicroLamports <= policy.floorMicroLamports) return priorityFeeFrom([], policy);
  return priorityFeeFrom(await adapter.recentPrioritizationFees(network, writable), policy);
}

interface OperationInstructions {
  instructions: TransactionInstruction[];
  /** What they consume at most, when that is known without simulating them. */
  computeUnits?: number;
  /**
   * The writable accounts that price the transaction, when not all it writes: an airdrop's
   * carrier is priced by what all its carriers write (the mint), not by its recipients' token
   * accounts, which it creates and nothing else contends for. Every carrier of the airdrop then
   * asks the same question, answered once (the adapter's cache), not one lookup a carrier.
   */
  pricedBy?: PublicKey[];
}

async function instructionsFor(
  adapter: SolanaAdapter,
  network: SolanaNetworkDefinition,
  payer: PublicKey,
  intent: AssetIntent,
  newMint: string | undefined,
  options: { checkGroupSize: boolean },
): Promise<OperationInstructions> {
  if (intent.kind === 'token.mintBatch') return tokenMintBatchOf(payer, intent);
  const instructions = await singleInstructionsFor(
    adapter,
    network,
    payer,
    intent,
    newMint,
    options,
  );
  // A new item is priced by what every mint of its collection writes (the collection's group
  // counts its members), not by its own new mint and token account, which nothing else
  // contends for: each of a collection's mints then asks the same question, answered once a
  // moment (the adapter's cache), not one lookup a mint.
  return intent.kind === 'nft.mint'
    ? { instructions, pricedBy: [new PublicKey(intent.collection)] }
    : { instructions };
}

/**
 * An airdrop's carrier of token mints, with its compute known from its recipients' bump seeds
 * (tokenMintBatchComputeUnits): no simulation before signing. What would fail is still refused
 * before it costs a fee, by the node's preflight at the first send; as token.mint, nothing is
 * checked before (the mint authority and the mint's existence are the program's to refuse).
 */
function tokenMintBatchOf(
  payer: PublicKey,
  intent: Extract<AssetIntent, { kind: 'token.mintBatch' }>,
): OperationInstructions {
  if (intent.recipients.length === 0 || intent.recipients.length !== intent.amounts.length) {
    throw new RangeError(
      `a token.mintBatch needs one amount per recipient and at least one recipient ` +
        `(${intent.recipients.length} recipients, ${intent.amounts.length} amounts)`,
    );
  }
  const mint = new PublicKey(intent.asset);
  const { instructions, bumps } = tokenMintBatchInstructions({
    authority: payer,
    mint,
    mints: intent.recipients.map((recipient, i) => ({
      recipient: new PublicKey(recipient),
      amount: u64(intent.amounts[i], 'amount'),
    })),
    decimals: decimalsOf(intent),
  });
  return {
    instructions,
    computeUnits: tokenMintBatchComputeUnits(bumps),
    pricedBy: [mint],
  };
}

async function singleInstructionsFor(
  adapter: SolanaAdapter,
  network: SolanaNetworkDefinition,
  payer: PublicKey,
  intent: Exclude<AssetIntent, { kind: 'token.mintBatch' }>,
  newMint: string | undefined,
  options: { checkGroupSize: boolean },
): Promise<TransactionInstruction[]> {
  const rentOf = () => adapter.rentOf(network);
  const mintKey = () => {
    if (!newMint) throw new Error(`${intent.kind} needs a new mint keypair`);
    return new PublicKey(newMint);
  };
  switch (intent.kind) {
    case 'token.create':
      return tokenCreateInstructions({
        authority: payer,
        mint: mintKey(),
        decimals: intent.decimals,
        initialSupply: u64(intent.initialSupply, 'initial supply'),
        metadata: { name: intent.name, symbol: intent.symbol, uri: intent.metadataUri },
        rentOf: await rentOf(),
      });
    case 'nft.create':
      return collectionCreateInstructions({
        authority: payer,
        mint: mintKey(),
        maxSize:
          intent.maxSupply === '0' ? UNLIMITED_GROUP_SIZE : u64(intent.maxSupply, 'max supply'),
        metadata: {
          name: intent.name,
          symbol: intent.symbol,
          uri: intent.metadataUri,
          additional: intent.sellerFeeBps > 0 ? sellerFeeField(intent.sellerFeeBps) : undefined,
        },
        rentOf: await rentOf(),
      });
    case 'nft.mint': {
      const collection = new PublicKey(intent.collection);
      if (options.checkGroupSize) await checkGroupRoom(adapter, network, collection);
      return itemMintInstructions({
        authority: payer,
        collection,
        item: mintKey(),
        recipient: new PublicKey(intent.recipient),
        metadata: {
          name: intent.name,
          symbol: intent.symbol ?? '',
          uri: intent.metadataUri,
          additional:
            intent.sellerFeeBps === undefined ? undefined : sellerFeeField(intent.sellerFeeBps),
        },
        rentOf: await rentOf(),
      });
    }
    case 'token.mint':
      return tokenMintInstructions({
        authority: payer,
        mint: new PublicKey(intent.asset),
        recipient: new PublicKey(intent.recipient),
        amount: u64(intent.amount, 'amount'),
        decimals: decimalsOf(intent),
      });
    case 'token.burn':
    case 'token.transfer': {
      const mint = new PublicKey(intent.asset);
      const amount = u64(intent.amount, 'amount');
      await checkBalance(adapter, network, payer, mint, amount);
      const common = { owner: payer, mint, amount };
      return intent.kind === 'token.burn'
        ? burnInstructions({ ...common, decimals: decimalsOf(intent) })
        : transferInstructions({
            ...common,
            recipient: new PublicKey(intent.recipient),
            decimals: decimalsOf(intent),
          });
    }
    case 'nft.transfer':
    case 'nft.burn': {
      const item = new PublicKey(intent.tokenId);
      await checkHeldItem(adapter, network, payer, item);
      if (intent.kind === 'nft.burn') {
        return burnInstructions({ owner: payer, mint: item, amount: 1n, decimals: 0, close: true });
      }
      const recipient = new PublicKey(intent.recipient);
      return transferInstructions({
        owner: payer,
        mint: item,
        recipient,
        amount: 1n,
        decimals: 0,
        close: !recipient.equals(payer),
      });
    }
    case 'nft.mintBatch':
      throw notPlannedOnSolana(intent.kind);
  }
}

/**
 * Every Solana item is a mint of its own, created by a fresh keypair that signs for it: NFT
 * airdrops go out as single nft.mint operations, pipelined. Reaching here is a bug in whatever
 * grouped them.
 */
function notPlannedOnSolana(kind: 'nft.mintBatch'): Error {
  return new Error(`${kind} is not planned on Solana: its items are minted as single operations`);
}

/** Royalty in the metadata field marketplaces read (Metaplex's name for it). */
function sellerFeeField(bps: number): [string, string][] {
  return [['seller_fee_basis_points', String(bps)]];
}

function decimalsOf(intent: { decimals?: number }): number {
  if (intent.decimals === undefined) throw new Error('Solana token operations carry decimals');
  return intent.decimals;
}

async function checkBalance(
  adapter: SolanaAdapter,
  network: SolanaNetworkDefinition,
  owner: PublicKey,
  mint: PublicKey,
  amount: bigint,
): Promise<void> {
  const ata = tokenAccountOf(mint, owner);
  const [account] = await adapter.accounts(network, [ata]);
  const held = account ? unpackAccount(ata, account, TOKEN_2022_PROGRAM_ID).amount : 0n;
  if (held < amount) {
    throw AppError.conflict(
      `Insufficient balance: the managed wallet holds ${held} base units, ` +
        `the operation needs ${amount}.`,
    );
  }
}

async function checkHeldItem(
  adapter: SolanaAdapter,
  network: SolanaNetworkDefinition,
  owner: PublicKey,
  item: PublicKey,
): Promise<void> {
  const ata = tokenAccountOf(item, owner);
  const [mintAccount, held] = await adapter.accounts(network, [item, ata]);
  if (!mintAccount) throw AppError.notFound(`No item ${item.toBase58()} on chain.`);
  const mint = mintOf(item, mintAccount);
  if (mint.supply === 0n) throw AppError.conflict(`Item ${item.toBase58()} was already burned.`);
  if (!held || unpackAccount(ata, held, TOKEN_2022_PROGRAM_ID).amount === 0n) {
    throw new AppError('FORBIDDEN', `The managed wallet does not hold item ${item.toBase58()}.`);
  }
}

async function checkGroupRoom(
  adapter: SolanaAdapter,
  network: SolanaNetworkDefinition,
  collection: PublicKey,
): Promise<void> {
  const [account] = await adapter.accounts(network, [collection]);
  const group = account ? groupOf(mintOf(collection, account)) : null;
  if (group && group.size >= group.maxSize) {
    throw AppError.conflict(`The collection has reached its max supply (${group.maxSize}).`);
  }
}

/** What a confirmed transaction produced: the new mint (and, for an item, its token id). */
export function solanaOutcome(intent: AssetIntent, newMint: string | undefined): AssetOutcome {
  switch (intent.kind) {
    case 'token.create':
    case 'nft.create':
      return { mintAddress: newMint };
    case 'nft.mint':
      return { mintAddress: newMint, tokenId: newMint };
    case 'token.mint':
    case 'token.burn':
    case 'token.transfer':
    case 'nft.transfer':
    case 'nft.burn':
      return {};
    case 'token.mintBatch':
      return { items: intent.recipients.map(() => ({})) };
    case 'nft.mintBatch':
      throw notPlannedOnSolana(intent.kind);
  }
}

const U64_LIMIT = 2n ** 64n;

/**
 * A base-unit value as the u64 an instruction carries. spl-token's encoder would silently keep
 * the low 64 bits of a larger value (2^64 + 5 mints 5), so out of range is refused here: a
 * RangeError, which fails the operation at once (failure-classifier).
 */
function u64(value: string, what: string): bigint {
  const parsed = BigInt(value);
  if (parsed < 0n || parsed >= U64_LIMIT) {
    throw new RangeError(`${what} ${boundedText(value, 40)} does not fit in a u64`);
  }
  return parsed;
}
