import bs58 from 'bs58';
import type { AccountState } from './ledger.types';
import { TransactionRefused } from './transaction-error.mapper';
import { isWritable, type WireTransaction } from './wire-transaction.decoder';

const ADDRESS_LOOKUP_TABLE_PROGRAM = 'AddressLookupTab1e1111111111111111111111111';
const LOOKUP_TABLE_META_SIZE = 56;

/** A transaction's account keys: static ones, then those loaded from address lookup tables. */
export interface ResolvedKeys {
  accountKeys: string[];
  keyBytes: Uint8Array[];
  writable: boolean[];
  loadedAddresses: { writable: string[]; readonly: string[] };
}

export function resolveAccountKeys(
  tx: WireTransaction,
  getAccount: (address: string) => AccountState | null,
): ResolvedKeys {
  const accountKeys = [...tx.staticAccounts];
  const writable = accountKeys.map((_, i) => isWritable(tx, i));
  const loadedAddresses = { writable: [] as string[], readonly: [] as string[] };
  for (const lookup of tx.addressTableLookups) {
    const table = getAccount(lookup.accountKey);
    if (!table)
      throw refused(
        'AddressLookupTableNotFound',
        "Transaction loads an address table account that doesn't exist",
      );
    if (table.owner !== ADDRESS_LOOKUP_TABLE_PROGRAM) {
      throw refused(
        'InvalidAddressLookupTableOwner',
        'Transaction loads an address table account with an invalid owner',
      );
    }
    const entries = (table.data.length - LOOKUP_TABLE_META_SIZE) / 32;
    const read = (index: number): string => {
      if (index >= entries)
        throw refused(
          'InvalidAddressLookupTableIndex',
          'Transaction address table lookup uses an invalid index',
        );
      const offset = LOOKUP_TABLE_META_SIZE + index * 32;
      return bs58.encode(table.data.subarray(offset, offset + 32));
    };
    loadedAddresses.writable.push(...lookup.writableIndexes.map(read));
    loadedAddresses.readonly.push(...lookup.readonlyIndexes.map(read));
  }
  accountKeys.push(...loadedAddresses.writable, ...loadedAddresses.readonly);
  writable.push(
    ...loadedAddresses.writable.map(() => true),
    ...loadedAddresses.readonly.map(() => false),
  );
  const loaded = [...loadedAddresses.writable, ...loadedAddresses.readonly];
  return {
    accountKeys,
    keyBytes: [...tx.staticAccountBytes, ...loaded.map((key) => bs58.decode(key))],
    writable,
    loadedAddresses,
  };
}

function refused(name: string, message: string): TransactionRefused {
  return new TransactionRefused({ json: name, message });
}
