export interface PublicEndpoint {
  chainId: number;
  rpcUrl: string;
  /** The public block explorer: `/tx/<hash>` and `/address/<address>` pages under it. */
  explorerUrl: string;
}

export interface EvmNetworkFacts {
  currency: string;
  feeModel: 'eip1559' | 'legacy';
  mainnet: PublicEndpoint;
  /** The network's public test network, used by the `devnet` profile. */
  devnet: PublicEndpoint;
}

/**
 * Every EVM network the service knows, one row each: its name (the API's `network` value), its
 * currency, fee model and public endpoints. The network names, their validation, queues and
 * configuration variables all follow from this table; any RPC URL can be overridden by
 * RPC_URL_<NETWORK>. Adding a network is adding a row (and regenerating the typed client).
 */
export const EVM_NETWORKS = {
  ethereum: evm(
    'ETH',
    [1, 'https://ethereum-rpc.publicnode.com', 'https://etherscan.io'],
    [11155111, 'https://ethereum-sepolia-rpc.publicnode.com', 'https://sepolia.etherscan.io'],
  ),
  sepolia: evm(
    'ETH',
    [11155111, 'https://ethereum-sepolia-rpc.publicnode.com', 'https://sepolia.etherscan.io'],
    [11155111, 'https://ethereum-sepolia-rpc.publicnode.com', 'https://sepolia.etherscan.io'],
  ),
  base: evm(
    'ETH',
    [8453, 'https://mainnet.base.org', 'https://basescan.org'],
    [84532, 'https://sepolia.base.org', 'https://sepolia.basescan.org'],
  ),
  polygon: evm(
    'POL',
    [137, 'https://polygon-rpc.com', 'https://polygonscan.com'],
    [80002, 'https://rpc-amoy.polygon.technology', 'https://amoy.polygonscan.com'],
  ),
  bsc: evm(
    'BNB',
    [56, 'https://bsc-dataseed.bnbchain.org', 'https://bscscan.com'],
    [97, 'https://data-seed-prebsc-1-s1.bnbchain.org:8545', 'https://testnet.bscscan.com'],
    'legacy',
  ),
  monad: evm(
    'MON',
    [143, 'https://rpc.monad.xyz', 'https://monadscan.com'],
    [10143, 'https://testnet-rpc.monad.xyz', 'https://testnet.monadscan.com'],
  ),
  sei: evm(
    'SEI',
    [1329, 'https://evm-rpc.sei-apis.com', 'https://seiscan.io'],
    [1328, 'https://evm-rpc-testnet.sei-apis.com', 'https://testnet.seiscan.io'],
  ),
  blast: evm(
    'ETH',
    [81457, 'https://rpc.blast.io', 'https://blastscan.io'],
    [168587773, 'https://sepolia.blast.io', 'https://sepolia.blastscan.io'],
  ),
  sonic: evm(
    'S',
    [146, 'https://rpc.soniclabs.com', 'https://sonicscan.org'],
    [14601, 'https://rpc.testnet.soniclabs.com', 'https://testnet.sonicscan.org'],
  ),
  linea: evm(
    'ETH',
    [59144, 'https://rpc.linea.build', 'https://lineascan.build'],
    [59141, 'https://rpc.sepolia.linea.build', 'https://sepolia.lineascan.build'],
  ),
  scroll: evm(
    'ETH',
    [534352, 'https://rpc.scroll.io', 'https://scrollscan.com'],
    [534351, 'https://sepolia-rpc.scroll.io', 'https://sepolia.scrollscan.com'],
  ),
  mantle: evm(
    'MNT',
    [5000, 'https://rpc.mantle.xyz', 'https://mantlescan.xyz'],
    [5003, 'https://rpc.sepolia.mantle.xyz', 'https://sepolia.mantlescan.xyz'],
  ),
  zora: evm(
    'ETH',
    [7777777, 'https://rpc.zora.energy', 'https://explorer.zora.energy'],
    [999999999, 'https://sepolia.rpc.zora.energy', 'https://sepolia.explorer.zora.energy'],
  ),
  optimism: evm(
    'ETH',
    [10, 'https://mainnet.optimism.io', 'https://optimistic.etherscan.io'],
    [11155420, 'https://sepolia.optimism.io', 'https://sepolia-optimism.etherscan.io'],
  ),
  arbitrum: evm(
    'ETH',
    [42161, 'https://arb1.arbitrum.io/rpc', 'https://arbiscan.io'],
    [421614, 'https://sepolia-rollup.arbitrum.io/rpc', 'https://sepolia.arbiscan.io'],
  ),
  avalanche: evm(
    'AVAX',
    [43114, 'https://api.avax.network/ext/bc/C/rpc', 'https://snowtrace.io'],
    [43113, 'https://api.avax-test.network/ext/bc/C/rpc', 'https://testnet.snowtrace.io'],
  ),
  boba: evm(
    'ETH',
    [288, 'https://mainnet.boba.network', 'https://bobascan.com'],
    [28882, 'https://sepolia.boba.network', 'https://testnet.bobascan.com'],
  ),
  metis: evm(
    'METIS',
    [1088, 'https://andromeda.metis.io/?owner=1088', 'https://andromeda-explorer.metis.io'],
    [59902, 'https://sepolia.metisdevops.link', 'https://sepolia-explorer.metisdevops.link'],
    'legacy',
  ),
  bera: evm(
    'BERA',
    [80094, 'https://rpc.berachain.com', 'https://berascan.com'],
    [80069, 'https://bepolia.rpc.berachain.com', 'https://testnet.berascan.com'],
  ),
  celo: evm(
    'CELO',
    [42220, 'https://forno.celo.org', 'https://celoscan.io'],
    [
      11142220,
      'https://forno.celo-sepolia.celo-testnet.org',
      'https://celo-sepolia.blockscout.com',
    ],
  ),
} satisfies Record<string, EvmNetworkFacts>;

export const SOLANA_RPC_URLS = {
  mainnet: 'https://api.mainnet-beta.solana.com',
  devnet: 'https://api.devnet.solana.com',
} as const;

/** Solana's explorer; the cluster is a query parameter of every page. */
export const SOLANA_EXPLORERS = {
  mainnet: { baseUrl: 'https://explorer.solana.com', query: '' },
  devnet: { baseUrl: 'https://explorer.solana.com', query: '?cluster=devnet' },
} as const;

/** anvil's chain id, which every EVM network has under the `local` profile. */
export const LOCAL_EVM_CHAIN_ID = 31337;

function evm(
  currency: string,
  mainnet: [number, string, string],
  devnet: [number, string, string],
  feeModel: EvmNetworkFacts['feeModel'] = 'eip1559',
): EvmNetworkFacts {
  const endpoint = ([chainId, rpcUrl, explorerUrl]: [number, string, string]) => ({
    chainId,
    rpcUrl,
    explorerUrl,
  });
  return { currency, feeModel, mainnet: endpoint(mainnet), devnet: endpoint(devnet) };
}
