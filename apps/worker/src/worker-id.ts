import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';

/**
 * This worker process's id in the shard leases: `<host>:<pid>:<random>`, so an operator (or a
 * test) can tell which process holds a shard, and a restarted process with a recycled pid is
 * still someone else; `<replica>@<host>:<pid>:<random>` with WORKER_REPLICA, so that its
 * restarts know its leases (see ShardLeases).
 */
export function workerId(replica?: string): string {
  const processId = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  return replica ? `${replica}@${processId}` : processId;
}
