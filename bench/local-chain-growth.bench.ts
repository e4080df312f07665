/**
 * `npm run bench:local-chain`: anvil's CPU per synchronous NFT mint on a fresh local chain, and on
 * the same chain once it has grown, as a ratio (anvil's cost per block grows with the chain).
 *   (a) after BENCH_CHAIN_MINTS mints, one block each: what using the service adds;
 *   (b) after BENCH_CHAIN_IDLE_BLOCKS empty blocks: what the quick chain's old one-second safety
 *       interval added while idle (2,000 blocks: 33 minutes), and no longer adds.
 * The remedy for (a) is `npm run local -- --fresh`, which starts from (a)'s first figure again.
 */
import { readFileSync } from 'node:fs';
import { JsonRpcProvider, Wallet, type HDNodeWallet } from 'ethers';
import { QUICK_CHAIN_SWEEP, startAnvil, sweepEvmPool } from '@app/localnet';
import {
  ANVIL_MNEMONIC,
  RAW_PROVIDER_OPTIONS,
  rawMintSigner,
  deployCollection,
  waitForReceipt,
} from './evm-helpers';

const SAMPLE_MINTS = 150;
const PIPELINE_BATCH = 250;
/** Linux's USER_HZ: /proc counts CPU time in hundredths of a second. */
const MS_PER_JIFFY = 10;

interface Minter {
  provider: JsonRpcProvider;
  signMint(): Promise<string>;
}

export async function run(
  mints = Number(process.env.BENCH_CHAIN_MINTS ?? 1_000),
  idleBlocks = Number(process.env.BENCH_CHAIN_IDLE_BLOCKS ?? 2_000),
): Promise<Record<string, string | number>[]> {
  return [
    await grownChain(`after ${mints} mints`, (minter) => mintPipelined(minter, mints)),
    await grownChain(`after ${idleBlocks} empty blocks`, async ({ provider }) => {
      await provider.send('anvil_mine', [`0x${idleBlocks.toString(16)}`]);
    }),
  ];
}

async function grownChain(
  label: string,
  grow: (minter: Minter) => Promise<void>,
): Promise<Record<string, string | number>> {
  // The quick chain of `npm run local`: automine, and the sweeper for what automine leaves.
  const anvil = await startAnvil();
  const sweeper = sweepEvmPool(anvil.url, QUICK_CHAIN_SWEEP);
  const provider = new JsonRpcProvider(anvil.url, undefined, RAW_PROVIDER_OPTIONS);
  try {
    const minter = await nftMinter(provider, Wallet.fromPhrase(ANVIL_MNEMONIC, provider));
    const fresh = await cpuPerMint(minter, anvil.pid);
    await grow(minter);
    const grown = await cpuPerMint(minter, anvil.pid);
    return {
      chain: label,
      'fresh ms/mint': fresh,
      'grown ms/mint': grown,
      'grown / fresh': Math.round((grown / fresh) * 10) / 10,
    };
  } finally {
    sweeper.stop();
    provider.destroy();
    await anvil.stop();
  }
}

async function nftMinter(provider: JsonRpcProvider, wallet: HDNodeWallet): Promise<Minter> {
  const { firstNonce, sign } = await rawMintSigner(wallet, await deployCollection(wallet));
  let nonce = firstNonce;
  return { provider, signMint: () => sign(nonce++) };
}

/** anvil's CPU (user + system) per mint, sent one at a time and each awaited, as the API's sync mode does. */
async function cpuPerMint(minter: Minter, anvilPid: number): Promise<number> {
  const signed: string[] = [];
  for (let i = 0; i < SAMPLE_MINTS; i++) signed.push(await minter.signMint());
  const before = cpuMs(anvilPid);
  for (const tx of signed) {
    await waitForReceipt(
      minter.provider,
      await minter.provider.send('eth_sendRawTransaction', [tx]),
      1,
    );
  }
  return Math.round(((cpuMs(anvilPid) - before) / SAMPLE_MINTS) * 10) / 10;
}

async function mintPipelined(minter: Minter, mints: number): Promise<void> {
  for (let sent = 0; sent < mints; sent += PIPELINE_BATCH) {
    let last = '';
    for (let i = 0; i < Math.min(PIPELINE_BATCH, mints - sent); i++) {
      last = await minter.provider.send('eth_sendRawTransaction', [await minter.signMint()]);
    }
    await waitForReceipt(minter.provider, last);
  }
}

function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name is in parentheses and may hold spaces: the fields follow the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * MS_PER_JIFFY;
}

if (require.main === module) {
  run().then(
    (rows) => {
      console.log("anvil's CPU per synchronous NFT mint, fresh chain vs the same chain grown:");
      console.table(rows);
      process.exit(0);
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
