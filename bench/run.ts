/**
 * `npm run bench`: every benchmark, one after the other, each printing its ratio against a
 * baseline measured in the same run.
 */
import { run as airdrop } from './airdrop.bench';
import { run as evmNft } from './evm-nft.bench';
import { run as fairness } from './fairness.bench';
import { run as mintCost } from './mint-cost.bench';
import { run as scaling } from './scaling.bench';
import { run as solanaNft } from './solana-nft.bench';
import { run as solanaRpc } from './solana-rpc.bench';
import { run as webhooks } from './webhooks.bench';

const BENCHES: [string, () => Promise<object>][] = [
  ['Solana JSON-RPC server vs litesvm direct', () => solanaRpc()],
  ['EVM NFT mints: service vs raw ethers', () => evmNft()],
  ['Solana NFT mints: service vs raw web3.js', () => solanaNft()],
  [
    "A synchronous NFT mint's cost in the service's processes and in Postgres",
    async () => (await mintCost()).map(({ cpuMsPerMint: _cpu, ...figures }) => figures),
  ],
  ['Webhook deliveries: service vs raw sender; settlement to delivery', () => webhooks()],
  [
    'Scaling: 1, 2, 3 workers vs raw wallets, realistic chain',
    async () => {
      const { runs, ...ratios } = await scaling();
      console.table(runs.map(({ cpuMsPerMint: _perMint, ...run }) => run));
      return ratios;
    },
  ],
  ["Fairness: B's sync mints while A floods", () => fairness()],
  [
    'Airdrops: one request of many mints vs one mint a transaction, realistic chain',
    async () => {
      const { runs, cases } = await airdrop();
      console.table(runs);
      return cases;
    },
  ],
];

async function main(): Promise<void> {
  for (const [name, bench] of BENCHES) {
    console.log(`\n== ${name}`);
    console.table(await bench());
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
