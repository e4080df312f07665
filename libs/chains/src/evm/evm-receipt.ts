import { getAddress } from 'ethers';

/** A log of a receipt: its emitter (lower case, as the node gives it) and its topics. */
export interface EvmLog {
  address: string;
  topics: readonly string[];
}

/** What the service reads of a mined transaction's receipt. */
export interface EvmReceipt {
  hash: string;
  blockNumber: number;
  blockHash: string;
  /** 1 ran, 0 reverted; null from a node before Byzantium. */
  status: number | null;
  /** A deployment's new contract, checksummed; null for a call. */
  contractAddress: string | null;
  logs: EvmLog[];
}

/** `eth_getTransactionReceipt`'s answer as the node sends it (hex quantities). */
export interface RawEvmReceipt {
  transactionHash: string;
  blockNumber: string;
  blockHash: string;
  status?: string | null;
  contractAddress?: string | null;
  logs: { address: string; topics: string[] }[];
}

/**
 * The receipt read from the node's answer itself. ethers' `getTransactionReceipt` formats every
 * field, checksumming each address (a keccak hash each: the sender, the recipient, each log's
 * emitter), which no reader here needs: with its formatting, receipts were about 5% of the
 * worker's CPU on the EVM mint path (`perf` over `bench:mint-cost`, session 26).
 */
export function evmReceiptOf(raw: RawEvmReceipt): EvmReceipt {
  return {
    hash: raw.transactionHash,
    blockNumber: Number(raw.blockNumber),
    blockHash: raw.blockHash,
    status: raw.status == null ? null : Number(raw.status),
    contractAddress: raw.contractAddress ? getAddress(raw.contractAddress) : null,
    logs: raw.logs.map(({ address, topics }) => ({ address, topics })),
  };
}
