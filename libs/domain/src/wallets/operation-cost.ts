import type { FeeFields, RentOf } from '@app/chains';

/** Gas of a typical EVM write: an NFT item mint (URI and royalty stored), about 200k. */
export const EVM_TYPICAL_GAS = 200_000n;

/**
 * A typical Solana write is an NFT item mint: two signatures (the fee payer and the new mint),
 * the rent of the item's mint account at its final size (about 600 bytes: the group member and
 * metadata pointers, the membership, metadata with a 32-character name, the hosted URI and a
 * royalty field) and of the recipient's Token-2022 account (170 bytes, ImmutableOwner).
 */
const SOLANA_SIGNATURES = 2n;
const LAMPORTS_PER_SIGNATURE = 5_000n;
const ITEM_MINT_BYTES = 600;
const TOKEN_ACCOUNT_BYTES = 170;

/** At the most the transaction may pay per gas: the fee cap (legacy: the gas price). */
export function evmOperationCost(fees: FeeFields): bigint {
  const perGas = 'gasPrice' in fees ? fees.gasPrice : fees.maxFeePerGas;
  return EVM_TYPICAL_GAS * perGas;
}

/** Base fees and the rent of the accounts an item mint creates (priority fees come on top). */
export function solanaOperationCost(rentOf: RentOf): bigint {
  return (
    SOLANA_SIGNATURES * LAMPORTS_PER_SIGNATURE +
    rentOf(ITEM_MINT_BYTES) +
    rentOf(TOKEN_ACCOUNT_BYTES)
  );
}

/** How many typical operations the balance pays for, rounded down; null when nothing is known. */
export function operationsLeft(balance: bigint | null, cost: bigint | null): number | null {
  if (balance === null || cost === null || cost <= 0n) return null;
  const left = balance / cost;
  return left > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(left);
}
