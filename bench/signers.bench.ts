/**
 * Signatures per second of each signer backend (docs/security.md#signers), in one run: `local`
 * (the key decrypted in memory: libsecp256k1 for EVM digests, node:crypto's Ed25519 for Solana
 * messages) against `pkcs11` (a SoftHSM2 token through pkcs11js, `PKCS11_SESSIONS` sessions, the
 * calls on libuv's threads), each for BENCH_SIGNER_SECONDS (3) with BENCH_SIGNER_CONCURRENCY (8)
 * signatures asked at once. Prints each rate and pkcs11 / local.
 * Run: npm run bench:signers   (needs softhsm2: apt-get install -y softhsm2)
 */
import { randomBytes } from 'node:crypto';
import { Wallet, keccak256 } from 'ethers';
import {
  Pkcs11Token,
  ed25519Signer,
  localEvmKey,
  localSolanaKey,
  newEd25519Seed,
  type EvmKey,
  type SolanaKey,
} from '@app/chains';
import { freshSoftHsmToken } from '@test/support/softhsm';
import softHsmSetup from '@test/support/softhsm.global-setup';
import softHsmTeardown from '@test/support/softhsm.global-teardown';
import { intFromEnv } from './evm-helpers';
import { round } from './stats';

export interface SignerRate {
  backend: 'local' | 'pkcs11';
  curve: 'secp256k1 (EVM)' | 'ed25519 (Solana)';
  signaturesPerSecond: number;
}

/** Signs as fast as `concurrency` callers at once can for `seconds`; signatures a second. */
async function rate(sign: () => unknown, seconds: number, concurrency: number): Promise<number> {
  const ends = performance.now() + seconds * 1000;
  let count = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < ends) {
        await sign();
        count += 1;
      }
    }),
  );
  return round(count / seconds, 0);
}

export async function run(): Promise<SignerRate[]> {
  const seconds = intFromEnv('BENCH_SIGNER_SECONDS', 3);
  const concurrency = intFromEnv('BENCH_SIGNER_CONCURRENCY', 8);
  const digest = keccak256(randomBytes(32));
  const message = randomBytes(200); // about a Solana message's size
  const evm = Wallet.createRandom();
  const localEvm: EvmKey = localEvmKey(Buffer.from(evm.privateKey.slice(2), 'hex'), evm.address);
  const localSolana: SolanaKey = localSolanaKey(ed25519Signer(newEd25519Seed()));

  softHsmSetup(); // a token directory of this run, as the test suites have
  const token = await Pkcs11Token.open({
    ...freshSoftHsmToken(),
    sessions: intFromEnv('PKCS11_SESSIONS', 4),
  });
  try {
    const [secp, ed] = [
      await token.generate('secp256k1', 'bench evm'),
      await token.generate('ed25519', 'bench solana'),
    ];
    return [
      {
        backend: 'local',
        curve: 'secp256k1 (EVM)',
        signaturesPerSecond: await rate(() => localEvm.signDigest(digest), seconds, concurrency),
      },
      {
        backend: 'pkcs11',
        curve: 'secp256k1 (EVM)',
        signaturesPerSecond: await rate(
          () => token.signDigest(secp.id, digest),
          seconds,
          concurrency,
        ),
      },
      {
        backend: 'local',
        curve: 'ed25519 (Solana)',
        signaturesPerSecond: await rate(() => localSolana.sign(message), seconds, concurrency),
      },
      {
        backend: 'pkcs11',
        curve: 'ed25519 (Solana)',
        signaturesPerSecond: await rate(
          () => token.signMessage(ed.id, message),
          seconds,
          concurrency,
        ),
      },
    ];
  } finally {
    token.close();
    softHsmTeardown();
  }
}

if (require.main === module) {
  run().then(
    (rates) => {
      console.log('Signatures per second by signer backend:');
      console.table(rates);
      for (const curve of ['secp256k1 (EVM)', 'ed25519 (Solana)'] as const) {
        const [local, pkcs11] = (['local', 'pkcs11'] as const).map((backend) =>
          rates.find((r) => r.backend === backend && r.curve === curve)!,
        );
        console.log(
          `${curve}: pkcs11 / local = ${round(pkcs11.signaturesPerSecond / local.signaturesPerSecond, 3)}`,
        );
      }
      process.exit(0);
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
