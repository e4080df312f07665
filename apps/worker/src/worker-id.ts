import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';

/**
 * This worker process's id in the shard leases: `<host>:<pid>:<random>`, so an operator (or a
 * test) can tell which process holds a shard, and a restarted process with a recycled pid is
 * still someone else.
 */
export function workerId(): string {
  return `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
}
