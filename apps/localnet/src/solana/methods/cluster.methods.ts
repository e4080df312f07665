import { createHash } from 'node:crypto';
import bs58 from 'bs58';
import type { RpcMethod } from '../json-rpc';
import type { Ledger } from '../ledger';
import { RpcError } from '../rpc.errors';
import { asPubkey, configParam, stringParam, u64Param } from '../rpc-params.util';
import { decodeMessageBytes } from '../wire-transaction.decoder';
import { withContext } from './method.util';

const IDENTITY = bs58.encode(
  createHash('sha256').update('asset-issuance-engine localnet identity').digest(),
);
const SOLANA_CORE_VERSION = '2.2.0';

/** Slots, blockhashes, fees, version: what describes the chain rather than an account. */
export function clusterMethods(ledger: Ledger): Record<string, RpcMethod> {
  const config = (params: unknown[], index: number) => configParam(params, index, ledger.slot);
  return {
    getHealth: () => 'ok',
    getVersion: () => ({ 'solana-core': SOLANA_CORE_VERSION, 'feature-set': 0 }),
    getGenesisHash: () => ledger.genesisHash,
    getIdentity: () => ({ identity: IDENTITY }),
    getSlotLeader: (params) => (config(params, 0), IDENTITY),
    getSlot: (params) => (config(params, 0), ledger.slot),
    getBlockHeight: (params) => (config(params, 0), ledger.blockHeight),
    getTransactionCount: (params) => (config(params, 0), ledger.transactionCount),
    getFirstAvailableBlock: () => 0,
    minimumLedgerSlot: () => 0,
    getMaxRetransmitSlot: () => ledger.slot,
    getMaxShredInsertSlot: () => ledger.slot,
    getEpochInfo: (params) => {
      config(params, 0);
      const { slotsPerEpoch } = ledger.epochSchedule;
      return {
        absoluteSlot: ledger.slot,
        blockHeight: ledger.blockHeight,
        epoch: Math.floor(ledger.slot / slotsPerEpoch),
        slotIndex: ledger.slot % slotsPerEpoch,
        slotsInEpoch: slotsPerEpoch,
        transactionCount: ledger.transactionCount,
      };
    },
    getEpochSchedule: () => {
      const { slotsPerEpoch } = ledger.epochSchedule;
      return {
        slotsPerEpoch,
        leaderScheduleSlotOffset: slotsPerEpoch,
        warmup: false,
        firstNormalEpoch: 0,
        firstNormalSlot: 0,
      };
    },
    getBlockTime: (params) => {
      const slot = u64Param(params, 0, 'slot');
      if (slot > ledger.slot) throw new RpcError(-32004, `Block not available for slot ${slot}`);
      return ledger.blockTime(slot);
    },
    getLatestBlockhash: (params) => (
      config(params, 0),
      withContext(ledger, ledger.latestBlockhash())
    ),
    isBlockhashValid: (params) => {
      const blockhash = asPubkey(stringParam(params, 0, 'blockhash'));
      config(params, 1);
      return withContext(ledger, ledger.isBlockhashValid(blockhash));
    },
    getFeeForMessage: (params) => {
      const encoded = stringParam(params, 0, 'message');
      config(params, 1);
      let message;
      try {
        message = decodeMessageBytes(Buffer.from(encoded, 'base64'));
      } catch (err) {
        if (err instanceof RpcError) throw err;
        throw RpcError.invalidParams(`invalid message: ${(err as Error).message}`);
      }
      const fee = ledger.feeFor(message);
      return withContext(ledger, fee === null ? null : Number(fee));
    },
    getRecentPrioritizationFees: (params) => {
      const addresses = params[0];
      if (addresses === undefined || addresses === null) return ledger.recentPrioritizationFees();
      if (!Array.isArray(addresses))
        throw RpcError.invalidParams('Invalid params: expected an array of addresses');
      if (addresses.length > 128) throw RpcError.invalidParams('Too many inputs provided; max 128');
      return ledger.recentPrioritizationFees(addresses.map(asPubkey));
    },
    getMinimumBalanceForRentExemption: (params) => {
      const length = u64Param(params, 0, 'dataLength');
      config(params, 1);
      return Number(ledger.minimumBalanceForRentExemption(length));
    },
  };
}
