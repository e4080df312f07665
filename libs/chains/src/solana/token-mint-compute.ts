/**
 * The compute a token.mintBatch consumes, as measured on the local chain: what sizes a carrier's
 * compute-unit limit without simulating it, and bounds how many recipients one may carry.
 */

/**
 * Compute units budgeted per recipient of a token.mintBatch: creating its associated account
 * on Token-2022 (CreateIdempotent: address derivation, GetAccountDataSize, CreateAccount,
 * InitializeImmutableOwner, InitializeAccount3) and mintToChecked. Measured by simulation on
 * the local chain (litesvm 1.5), on a mint made by token.create (MetadataPointer +
 * TokenMetadata), over 300 fresh recipients: 18,899 units when the account's address is found
 * at the first bump seed, 1,500 more for each further seed the derivation tries (each about
 * half as likely as the one before): median 18,899, mean 20,339, p99 27,899, max 30,899.
 * A recipient whose account exists costs 9,058. The integration test
 * (test/integration/chains/solana-token-mint-batch.test.ts) keeps the budget honest. Compute
 * does not bind: the packet limit stops a batch near 200,000 units, a seventh of the ceiling.
 */
export const TOKEN_MINT_COMPUTE_UNITS = 40_000;

/** The rest of a batch: the two compute-budget instructions and the memo (measured: 587). */
export const TOKEN_MINT_BATCH_BASE_COMPUTE_UNITS = 1_000;

/**
 * A fresh recipient whose associated account is found at the first bump seed (255): measured
 * 18,899-18,908 by simulation over 80 fresh recipients (litesvm 1.5, a token.create mint). A
 * recipient whose account exists costs less (9,058).
 */
export const TOKEN_MINT_FIRST_SEED_COMPUTE_UNITS = 19_000;

/**
 * Each further bump seed the associated-token program tries: one create_program_address
 * syscall, which the runtime prices at 1,500 units (measured: exactly 1,500 a seed, bumps 255
 * down to 248).
 */
export const PROGRAM_ADDRESS_SEED_COMPUTE_UNITS = 1_500;

/**
 * What a token.mintBatch consumes at most, from its recipients' bump seeds
 * (`tokenMintBatchInstructions`): known without simulating it. The tokens airdropped are the
 * account's own (token.create), so every recipient's work is the same but for its seeds.
 */
export function tokenMintBatchComputeUnits(bumps: number[]): number {
  return bumps.reduce(
    (units, bump) =>
      units +
      TOKEN_MINT_FIRST_SEED_COMPUTE_UNITS +
      PROGRAM_ADDRESS_SEED_COMPUTE_UNITS * (255 - bump),
    TOKEN_MINT_BATCH_BASE_COMPUTE_UNITS,
  );
}
