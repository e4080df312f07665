import { rekeyChainsToIdentities } from './chain-keys/chain-key-rekey';
import { runDatabaseCli } from './database-cli';

/**
 * `npm run chain-keys:rekey`, with every API and worker process stopped: the public chains still
 * keyed by an RPC URL (rows stored before keys were pinned) keyed by their identity instead.
 */
runDatabaseCli(
  'Rekeying chains failed',
  async (dataSource) => {
    const rekeyed = await rekeyChainsToIdentities(dataSource);
    for (const { identity, rows } of rekeyed) {
      const moved = Object.entries(rows).map(([table, count]) => `${table} ${count}`);
      console.log(
        `Chain ${identity} is keyed by its identity now; rows moved: ${moved.join(', ')}.`,
      );
    }
    if (rekeyed.length === 0) console.log('Every pinned chain is keyed by its identity already.');
    return 0;
  },
  1, // one connection: the rekeying refuses while any other is open
);
