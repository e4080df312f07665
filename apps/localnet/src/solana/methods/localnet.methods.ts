import type { RpcMethod } from '../json-rpc';
import type { Ledger } from '../ledger';
import { pubkeyParam, u64Param } from '../rpc-params.util';

/**
 * Development methods no real validator has, the counterparts of anvil's `anvil_*`: tests use
 * them to put the chain in a state that transactions alone reach slowly or not at all.
 */
export function localnetMethods(ledger: Ledger): Record<string, RpcMethod> {
  return {
    /** `[pubkey, lamports]`: the account's balance becomes exactly `lamports`; answers null. */
    localnet_setLamports: (params) => {
      const address = pubkeyParam(params, 0);
      const lamports = u64Param(params, 1, 'lamports');
      ledger.setLamports(address, BigInt(lamports));
      return null;
    },
  };
}
