import {
  ComputeBudgetProgram,
  Keypair,
  LAMPORTS_PER_SOL,
  SystemProgram,
  Transaction,
  type Connection,
  type PublicKey,
} from '@solana/web3.js';

/** A blockhash stays valid 150 slots; a fresh one each second is plenty even on fast slots. */
const BLOCKHASH_REFRESH_MS = 1_000;

/** Another user of the network, sending transactions at a compute-unit price of its choice. */
export interface FeeTraffic {
  /** The price of the transactions sent from now on (micro-lamports per compute unit). */
  setPrice(microLamports: number): void;
  stop(): Promise<void>;
}

/**
 * Keeps a funded keypair of the test's own sending tiny SOL transfers to `to` (itself when
 * omitted) every few milliseconds at a compute-unit price, so that the accounts they write show
 * that price in getRecentPrioritizationFees, slot after slot, as contention would on a real
 * network. Sends are not awaited for confirmation: only the fee records matter.
 */
export async function startFeeTraffic(
  connection: Connection,
  microLamports: number,
  to?: PublicKey,
  everyMs = 15,
): Promise<FeeTraffic> {
  const payer = Keypair.generate();
  await fund(connection, payer.publicKey);
  let price = microLamports;
  let running = true;
  const loop = (async () => {
    let latest = await connection.getLatestBlockhash();
    let fetchedAt = Date.now();
    // Each transfer moves one more lamport than the last: no two are the same transaction.
    for (let lamports = 1; running; lamports++) {
      if (Date.now() - fetchedAt > BLOCKHASH_REFRESH_MS) {
        latest = await connection.getLatestBlockhash();
        fetchedAt = Date.now();
      }
      const tx = new Transaction({ feePayer: payer.publicKey, ...latest }).add(
        ComputeBudgetProgram.setComputeUnitLimit({ units: 1_000 }),
        ComputeBudgetProgram.setComputeUnitPrice({ microLamports: price }),
        SystemProgram.transfer({
          fromPubkey: payer.publicKey,
          toPubkey: to ?? payer.publicKey,
          lamports,
        }),
      );
      tx.sign(payer);
      await connection.sendRawTransaction(tx.serialize(), { skipPreflight: true });
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  // Reported by stop(); not an unhandled rejection meanwhile.
  loop.catch(() => undefined);
  return {
    setPrice: (next) => {
      price = next;
    },
    stop: async () => {
      running = false;
      await loop;
    },
  };
}

async function fund(connection: Connection, address: PublicKey): Promise<void> {
  await connection.requestAirdrop(address, 100 * LAMPORTS_PER_SOL);
  while ((await connection.getBalance(address, 'confirmed')) === 0) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
