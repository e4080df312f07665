import { encodeAccount, parseAccountEncoding, type AccountEncoding } from '../account.encoder';
import type { RpcMethod } from '../json-rpc';
import type { Ledger } from '../ledger';
import type { SimulationResult, TransactionRecord } from '../ledger.types';
import { RpcError, RpcErrorCode } from '../rpc.errors';
import {
  asPubkey,
  describe,
  configParam,
  pubkeyParam,
  requiredParam,
  signatureParam,
  stringParam,
} from '../rpc-params.util';
import {
  encodeSimulatedInnerInstructions,
  encodeTransactionRecord,
  type TransactionEncoding,
} from '../transaction.encoder';
import { decodeWireTransaction, readMemos, type WireEncoding } from '../wire-transaction.decoder';
import { mintDecimalsFrom, withContext } from './method.util';

const MAX_SIGNATURE_STATUSES = 256;
const MAX_SIGNATURES_FOR_ADDRESS = 1000;
const TRANSACTION_ENCODINGS: readonly string[] = ['json', 'jsonParsed', 'base58', 'base64'];

/** Sending, simulating and looking up transactions. */
export function transactionMethods(ledger: Ledger): Record<string, RpcMethod> {
  const config = (params: unknown[], index: number) => configParam(params, index, ledger.slot);

  return {
    sendTransaction: (params) => {
      const encoded = stringParam(params, 0, 'transaction');
      const cfg = config(params, 1);
      const tx = decodeWireTransaction(encoded, wireEncoding(cfg.encoding));
      const outcome = ledger.submit(tx, { skipPreflight: cfg.skipPreflight === true });
      switch (outcome.status) {
        case 'landed':
        case 'duplicate':
          return outcome.record.signature;
        case 'dropped':
          return outcome.signature;
        case 'rejected':
          throw preflightError(outcome.simulation);
      }
    },
    simulateTransaction: (params) => {
      const encoded = stringParam(params, 0, 'transaction');
      const cfg = config(params, 1);
      const sigVerify = cfg.sigVerify === true;
      const replaceRecentBlockhash = cfg.replaceRecentBlockhash === true;
      if (sigVerify && replaceRecentBlockhash) {
        throw RpcError.invalidParams('sigVerify may not be used with replaceRecentBlockhash');
      }
      const tx = decodeWireTransaction(encoded, wireEncoding(cfg.encoding));
      const { addresses, encoding: accountEncoding } = simulatedAccountsConfig(cfg.accounts);
      const simulation = ledger.simulate(tx, {
        sigVerify,
        replaceRecentBlockhash,
        accounts: addresses,
      });
      const mintDecimals = mintDecimalsFrom(ledger);
      return withContext(ledger, {
        ...simulationValue(simulation),
        accounts: addresses
          ? simulation.postAccounts.map((account) =>
              account ? encodeAccount(account, accountEncoding, { mintDecimals }) : null,
            )
          : null,
        innerInstructions:
          cfg.innerInstructions === true
            ? encodeSimulatedInnerInstructions(simulation.accountKeys, simulation.details)
            : null,
        replacementBlockhash: replaceRecentBlockhash ? ledger.latestBlockhash() : null,
      });
    },
    getSignatureStatuses: (params) => {
      const signatures = requiredParam(params, 0, 'signatures');
      if (!Array.isArray(signatures))
        throw RpcError.invalidParams('Invalid params: `signatures` must be an array.');
      if (signatures.length > MAX_SIGNATURE_STATUSES) {
        throw RpcError.invalidParams(`Too many inputs provided; max ${MAX_SIGNATURE_STATUSES}`);
      }
      config(params, 1);
      return withContext(
        ledger,
        signatures.map((signature) => {
          const record = ledger.getTransaction(signatureParam(signature));
          return record ? signatureStatus(record) : null;
        }),
      );
    },
    getTransaction: (params) => {
      const signature = signatureParam(requiredParam(params, 0, 'signature'));
      const cfg = typeof params[1] === 'string' ? { encoding: params[1] } : config(params, 1);
      const encoding = cfg.encoding ?? 'json';
      if (typeof encoding !== 'string' || !TRANSACTION_ENCODINGS.includes(encoding)) {
        throw RpcError.invalidParams(
          `Invalid params: unknown variant ${describe(encoding)}, expected one of \`json\`, \`jsonParsed\`, \`base58\`, \`base64\`.`,
        );
      }
      if (cfg.commitment === 'processed') {
        throw RpcError.invalidParams('Method does not support commitment below `confirmed`');
      }
      const record = ledger.getTransaction(signature);
      if (!record) return null;
      const maxVersion = cfg.maxSupportedTransactionVersion;
      if (record.tx.version === 0 && maxVersion === undefined) {
        throw new RpcError(
          RpcErrorCode.unsupportedTransactionVersion,
          'Transaction version (0) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": 0',
        );
      }
      return encodeTransactionRecord(
        record,
        encoding as TransactionEncoding,
        maxVersion !== undefined,
      );
    },
    getSignaturesForAddress: (params) => {
      const address = pubkeyParam(params, 0, 'address');
      const cfg = config(params, 1);
      const limit = cfg.limit === undefined ? MAX_SIGNATURES_FOR_ADDRESS : Number(cfg.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > MAX_SIGNATURES_FOR_ADDRESS) {
        throw RpcError.invalidParams('Invalid limit; max 1000');
      }
      const before = cfg.before === undefined ? undefined : signatureParam(cfg.before);
      const until = cfg.until === undefined ? undefined : signatureParam(cfg.until);
      const result = [];
      let started = before === undefined;
      for (const record of ledger.signaturesForAddress(address)) {
        if (!started) {
          started = record.signature === before;
          continue;
        }
        if (record.signature === until || result.length >= limit) break;
        result.push({
          signature: record.signature,
          slot: record.slot,
          err: record.err,
          memo: readMemos(record.tx),
          blockTime: record.blockTime,
          confirmationStatus: 'finalized',
        });
      }
      return result;
    },
  };
}

function wireEncoding(value: unknown): WireEncoding {
  if (value === undefined || value === null || value === 'base58') return 'base58';
  if (value === 'base64') return 'base64';
  throw RpcError.invalidParams(
    `Invalid params: unsupported encoding: ${describe(value)}. Supported encodings: base58, base64`,
  );
}

function simulatedAccountsConfig(value: unknown): {
  addresses?: string[];
  encoding: AccountEncoding;
} {
  if (value === undefined || value === null) return { encoding: 'base64' };
  const { addresses, encoding } = value as { addresses?: unknown; encoding?: unknown };
  if (!Array.isArray(addresses)) {
    throw RpcError.invalidParams('Invalid params: accounts.addresses must be an array.');
  }
  return { addresses: addresses.map(asPubkey), encoding: parseAccountEncoding(encoding, 'base64') };
}

function simulationValue(simulation: SimulationResult): Record<string, unknown> {
  return {
    err: simulation.err,
    logs: simulation.details.logs,
    unitsConsumed: simulation.details.computeUnitsConsumed,
    returnData: simulation.details.returnData,
    fee: Number(simulation.fee),
    loadedAccountsDataSize: 0,
  };
}

function preflightError(simulation: SimulationResult): RpcError {
  if (simulation.err === 'SignatureFailure') {
    return new RpcError(
      RpcErrorCode.transactionSignatureVerificationFailure,
      'Transaction signature verification failure',
    );
  }
  return new RpcError(
    RpcErrorCode.sendTransactionPreflightFailure,
    `Transaction simulation failed: ${simulation.errMessage}`,
    {
      ...simulationValue(simulation),
      accounts: null,
      innerInstructions: null,
      replacementBlockhash: null,
    },
  );
}

/** Execution is final in litesvm, so every recorded transaction is reported finalized. */
function signatureStatus(record: TransactionRecord): Record<string, unknown> {
  return {
    slot: record.slot,
    confirmations: null,
    err: record.err,
    status: record.err === null ? { Ok: null } : { Err: record.err },
    confirmationStatus: 'finalized',
  };
}
