import type { ConcreteNetwork, EvmNetwork } from '@app/config';

export interface PublicEndpoint {
  chainId: number;
  rpcUrl: string;
}

export interface EvmNetworkFacts {
  currency: string;
  feeModel: 'eip1559' | 'legacy';
  mainnet: PublicEndpoint;
  /** The network's public test network, used by the `devnet` profile. */
  devnet: PublicEndpoint;
}

/** Public facts of each EVM network; any RPC URL can be overridden by RPC_URL_<NETWORK>. */
export const EVM_NETWORKS: Record<EvmNetwork, EvmNetworkFacts> = {
  ethereum: evm(
    'ETH',
    [1, 'https://ethereum-rpc.publicnode.com'],
    [11155111, 'https://ethereum-sepolia-rpc.publicnode.com'],
  ),
  sepolia: evm(
    'ETH',
    [11155111, 'https://ethereum-sepolia-rpc.publicnode.com'],
    [11155111, 'https://ethereum-sepolia-rpc.publicnode.com'],
  ),
  base: evm('ETH', [8453, 'https://mainnet.base.org'], [84532, 'https://sepolia.base.org']),
  polygon: evm(
    'POL',
    [137, 'https://polygon-rpc.com'],
    [80002, 'https://rpc-amoy.polygon.technology'],
  ),
  bsc: evm(
    'BNB',
    [56, 'https://bsc-dataseed.bnbchain.org'],
    [97, 'https://data-seed-prebsc-1-s1.bnbchain.org:8545'],
    'legacy',
  ),
  monad: evm('MON', [143, 'https://rpc.monad.xyz'], [10143, 'https://testnet-rpc.monad.xyz']),
  sei: evm(
    'SEI',
    [1329, 'https://evm-rpc.sei-apis.com'],
    [1328, 'https://evm-rpc-testnet.sei-apis.com'],
  ),
  blast: evm('ETH', [81457, 'https://rpc.blast.io'], [168587773, 'https://sepolia.blast.io']),
  sonic: evm('S', [146, 'https://rpc.soniclabs.com'], [14601, 'https://rpc.testnet.soniclabs.com']),
  linea: evm('ETH', [59144, 'https://rpc.linea.build'], [59141, 'https://rpc.sepolia.linea.build']),
  scroll: evm('ETH', [534352, 'https://rpc.scroll.io'], [534351, 'https://sepolia-rpc.scroll.io']),
  mantle: evm('MNT', [5000, 'https://rpc.mantle.xyz'], [5003, 'https://rpc.sepolia.mantle.xyz']),
  zora: evm(
    'ETH',
    [7777777, 'https://rpc.zora.energy'],
    [999999999, 'https://sepolia.rpc.zora.energy'],
  ),
  optimism: evm(
    'ETH',
    [10, 'https://mainnet.optimism.io'],
    [11155420, 'https://sepolia.optimism.io'],
  ),
  arbitrum: evm(
    'ETH',
    [42161, 'https://arb1.arbitrum.io/rpc'],
    [421614, 'https://sepolia-rollup.arbitrum.io/rpc'],
  ),
  avalanche: evm(
    'AVAX',
    [43114, 'https://api.avax.network/ext/bc/C/rpc'],
    [43113, 'https://api.avax-test.network/ext/bc/C/rpc'],
  ),
  boba: evm('ETH', [288, 'https://mainnet.boba.network'], [28882, 'https://sepolia.boba.network']),
  metis: evm(
    'METIS',
    [1088, 'https://andromeda.metis.io/?owner=1088'],
    [59902, 'https://sepolia.metisdevops.link'],
    'legacy',
  ),
  bera: evm(
    'BERA',
    [80094, 'https://rpc.berachain.com'],
    [80069, 'https://bepolia.rpc.berachain.com'],
  ),
  celo: evm(
    'CELO',
    [42220, 'https://forno.celo.org'],
    [11142220, 'https://forno.celo-sepolia.celo-testnet.org'],
  ),
};

export const SOLANA_RPC_URLS = {
  mainnet: 'https://api.mainnet-beta.solana.com',
  devnet: 'https://api.devnet.solana.com',
} as const;

/** anvil's chain id, which every EVM network has under the `local` profile. */
export const LOCAL_EVM_CHAIN_ID = 31337;

function evm(
  currency: string,
  mainnet: [number, string],
  devnet: [number, string],
  feeModel: EvmNetworkFacts['feeModel'] = 'eip1559',
): EvmNetworkFacts {
  return {
    currency,
    feeModel,
    mainnet: { chainId: mainnet[0], rpcUrl: mainnet[1] },
    devnet: { chainId: devnet[0], rpcUrl: devnet[1] },
  };
}

export type { ConcreteNetwork };
