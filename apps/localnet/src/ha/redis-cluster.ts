import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Redis from 'ioredis';
import { findFreePort, waitUntil } from '../net.util';
import { EPHEMERAL_REDIS_ARGS, spawnRedisServer, type RedisServerProcess } from './redis-server';
import { requireTools } from './required-tools';

const run = promisify(execFile);
/** A cluster node also listens on its port plus this, for the cluster bus. */
const CLUSTER_BUS_OFFSET = 10_000;

/** A Redis Cluster of its own (a test's, `npm run local:ha`'s): masters with replicas, on loopback ports. */
export interface OwnRedisCluster {
  /** REDIS_CLUSTER_NODES for the service: every node, masters and replicas. */
  readonly nodesEnv: string;
  /** The port of the master serving the key's hash slot now. */
  masterOf(key: string): Promise<number>;
  /** GET on the master serving the key's slot. */
  get(key: string): Promise<string | null>;
  /** How many masters serve these keys' slots. */
  mastersServing(keys: string[]): Promise<number>;
  /**
   * SIGKILLs the master serving the key's slot and waits until one of its replicas is promoted
   * and the cluster is whole again; returns the new master's port.
   */
  killMasterOf(key: string): Promise<number>;
  stop(): Promise<void>;
}

/**
 * `masters` masters with `replicasEach` replicas each, created by `redis-cli --cluster create`,
 * nothing persisted. A node is declared failed after 1 s (`cluster-node-timeout`), and a replica
 * may be promoted however far behind it was: a test's failover takes seconds.
 */
export async function startRedisCluster(masters = 3, replicasEach = 1): Promise<OwnRedisCluster> {
  requireTools('A Redis Cluster', ['redis-server', 'redis-cli'], ['redis-server', 'redis-tools']);
  const dir = mkdtempSync(join(tmpdir(), 'ais-redis-cluster-'));
  const nodes = new Map<number, RedisServerProcess>();
  const count = masters * (1 + replicasEach);
  const stopAll = async () => {
    await Promise.all([...nodes.values()].map((server) => server.stop()));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < count; i++) {
      const port = await findFreePort('127.0.0.1', CLUSTER_BUS_OFFSET);
      const server = await spawnRedisServer([
        '--port',
        String(port),
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        join(dir, `nodes-${port}.conf`),
        '--cluster-node-timeout',
        '1000',
        '--cluster-replica-validity-factor',
        '0',
        '--dir',
        dir,
        ...EPHEMERAL_REDIS_ARGS,
      ]);
      nodes.set(port, server);
    }
    await run('redis-cli', [
      '--cluster',
      'create',
      ...[...nodes.keys()].map((port) => `127.0.0.1:${port}`),
      '--cluster-replicas',
      String(replicasEach),
      '--cluster-yes',
    ]);
    await clusterWhole([...nodes.keys()]);
  } catch (error) {
    // A node that could not start (or a cluster that would not form) leaves none running.
    await stopAll();
    throw error;
  }
  const ports = [...nodes.keys()];
  const live = () => ports.filter((port) => nodes.has(port));

  const slotOwners = async (): Promise<Array<{ from: number; to: number; port: number }>> => {
    const slots = (await ask(live()[0], 'CLUSTER', 'SLOTS')) as Array<
      [number, number, [string, number, ...unknown[]], ...unknown[]]
    >;
    return slots.map(([from, to, [, port]]) => ({ from, to, port: Number(port) }));
  };
  const masterOf = async (key: string): Promise<number> => {
    const slot = Number(await ask(live()[0], 'CLUSTER', 'KEYSLOT', key));
    const owner = (await slotOwners()).find(({ from, to }) => from <= slot && slot <= to);
    if (!owner) throw new Error(`no master serves slot ${slot}`);
    return owner.port;
  };

  return {
    nodesEnv: ports.map((port) => `127.0.0.1:${port}`).join(','),
    masterOf,
    get: async (key) => (await ask(await masterOf(key), 'GET', key)) as string | null,
    mastersServing: async (keys) =>
      new Set(await Promise.all(keys.map((key) => masterOf(key)))).size,
    killMasterOf: async (key) => {
      const old = await masterOf(key);
      await nodes.get(old)?.kill();
      nodes.delete(old);
      let promoted = old;
      await waitUntil(
        async () => {
          promoted = await masterOf(key).catch(() => old);
          return promoted !== old && (await isWhole(live()));
        },
        30_000,
        { intervalMs: 200, what: `a replica of ${old} to be promoted` },
      );
      return promoted;
    },
    stop: stopAll,
  };
}

async function ask(port: number, ...command: string[]): Promise<unknown> {
  const client = new Redis(port, '127.0.0.1', { maxRetriesPerRequest: 1, lazyConnect: true });
  try {
    await client.connect();
    return await client.call(command[0], ...command.slice(1));
  } finally {
    client.disconnect();
  }
}

/** Every live node sees the cluster as `ok` (all slots served, by nodes it agrees on). */
async function isWhole(ports: number[]): Promise<boolean> {
  const states = await Promise.all(
    ports.map((port) => ask(port, 'CLUSTER', 'INFO').then(String, () => '')),
  );
  return states.every((info) => info.includes('cluster_state:ok'));
}

function clusterWhole(ports: number[]): Promise<void> {
  return waitUntil(() => isWhole(ports), 30_000, {
    intervalMs: 100,
    what: 'the Redis Cluster to come up',
  });
}
