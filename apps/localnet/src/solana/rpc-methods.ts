import type { RpcMethod } from './json-rpc';
import type { Ledger } from './ledger';
import { accountMethods } from './methods/account.methods';
import { clusterMethods } from './methods/cluster.methods';
import { localnetMethods } from './methods/localnet.methods';
import { tokenMethods } from './methods/token.methods';
import { transactionMethods } from './methods/transaction.methods';

/** Every JSON-RPC method the local validator answers, by name. */
export function createRpcMethods(ledger: Ledger): Map<string, RpcMethod> {
  return new Map(
    Object.entries({
      ...clusterMethods(ledger),
      ...accountMethods(ledger),
      ...tokenMethods(ledger),
      ...transactionMethods(ledger),
      ...localnetMethods(ledger),
    }),
  );
}
