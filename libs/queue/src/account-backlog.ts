import type { ConcreteNetwork } from '@app/config';
import type { RedisConnection } from './redis-client';

/**
 * Each account's share of a network's queue, kept in Redis beside the queue (Postgres stays the
 * source of truth; the reconciler prunes what it no longer holds, and a flushed Redis just
 * starts counting again):
 * - `pending`: the ids of the account's operations put on the queue and not completed, whose
 *   count is the next job's place in the account's backlog (its fair-share priority);
 * - `in-flight`: the ids of the account's operations a worker is running now, each with an
 *   expiry renewed while it runs, so a slot held by a killed worker frees itself;
 * - `line`: the jobs put back (delayed) for want of a slot, first come first; each freed slot
 *   brings the first back at once, and its delay is only a fallback (a lost hand-over).
 */
export class AccountBacklog {
  private readonly redis: RedisConnection & BacklogCommands;

  constructor(
    redis: RedisConnection,
    private readonly prefix: string,
  ) {
    // Defined commands run by EVALSHA (ioredis sends the source once, on NOSCRIPT): a script's
    // text is not sent and hashed again at each of the three calls a job makes.
    redis.defineCommand('backlogRegister', { numberOfKeys: 3, lua: REGISTER });
    redis.defineCommand('backlogTakeSlot', { numberOfKeys: 3, lua: TAKE_SLOT });
    redis.defineCommand('backlogReleaseSlot', { numberOfKeys: 3, lua: RELEASE_SLOT });
    redis.defineCommand('backlogForgetIfIdle', { numberOfKeys: 3, lua: FORGET_IF_IDLE });
    this.redis = redis as RedisConnection & BacklogCommands;
  }

  /**
   * Counts the operation as pending (once, however often it is enqueued): the pending count, and
   * how many of the account's slots are held now.
   */
  async register(
    network: ConcreteNetwork,
    accountId: string,
    operationId: string,
  ): Promise<{ pending: number; inFlight: number }> {
    const [pending, inFlight] = await this.redis.backlogRegister(
      this.accountsKey(network),
      this.pendingKey(network, accountId),
      this.inFlightKey(network, accountId),
      accountId,
      operationId,
      Date.now(),
    );
    return { pending, inFlight };
  }

  /** Puts a job (delayed already) in its account's line for a slot, keeping a place it has. */
  async lineUp(network: ConcreteNetwork, accountId: string, entry: LineEntry): Promise<void> {
    await this.redis.zadd(this.lineKey(network, accountId), 'NX', Date.now(), lineEntry(entry));
  }

  /**
   * Takes one of the account's `cap` in-flight slots for the operation (kept if it holds one):
   * `{ taken: false, pending, ahead }` when all are held by other operations. Given the job's
   * queue, a job left without a slot joins the account's line for one (`ahead` of it in the
   * line), from which `releaseSlot` hands out the next; one that takes a slot leaves the line.
   */
  async takeSlot(
    network: ConcreteNetwork,
    accountId: string,
    operationId: string,
    cap: number,
    holdMs: number,
    queueName = '',
  ): Promise<{ taken: boolean; pending: number; ahead: number }> {
    const now = Date.now();
    const [taken, pending, ahead] = await this.redis.backlogTakeSlot(
      this.inFlightKey(network, accountId),
      this.pendingKey(network, accountId),
      this.lineKey(network, accountId),
      operationId,
      now,
      now + holdMs,
      cap,
      queueName ? lineEntry({ queueName, jobId: operationId }) : '',
    );
    return { taken: taken === 1, pending, ahead };
  }

  /**
   * Frees the operation's slot (`completed` also takes it off the account's pending set), and
   * hands out the job first in the account's line for a slot, taken off the line: the caller
   * brings it back to the queue now, rather than at the end of its delay.
   */
  async releaseSlot(
    network: ConcreteNetwork,
    accountId: string,
    operationId: string,
    completed: boolean,
  ): Promise<LineEntry | null> {
    const next = await this.redis.backlogReleaseSlot(
      this.inFlightKey(network, accountId),
      this.pendingKey(network, accountId),
      this.lineKey(network, accountId),
      operationId,
      completed ? 1 : 0,
    );
    return next ? parseLineEntry(next) : null;
  }

  /** The job first in the account's line, taken off it (the one handed out could not come). */
  async nextInLine(network: ConcreteNetwork, accountId: string): Promise<LineEntry | null> {
    const [first] = await this.redis.zpopmin(this.lineKey(network, accountId));
    return first ? parseLineEntry(first) : null;
  }

  /** Pushes back the expiry of slots still held (a running operation's): a round trip a network. */
  async renewSlots(
    slots: Array<{ network: ConcreteNetwork; accountId: string; operationId: string }>,
    holdMs: number,
  ): Promise<void> {
    const until = Date.now() + holdMs;
    const pipelines = new Map<ConcreteNetwork, ReturnType<RedisConnection['pipeline']>>();
    for (const { network, accountId, operationId } of slots) {
      let pipeline = pipelines.get(network);
      if (!pipeline) pipelines.set(network, (pipeline = this.redis.pipeline()));
      pipeline.zadd(this.inFlightKey(network, accountId), 'XX', until, operationId);
    }
    await Promise.all([...pipelines.values()].map((pipeline) => pipeline.exec()));
  }

  /** Per account with pending work on the network: its pending and in-flight counts. */
  async depths(
    network: ConcreteNetwork,
  ): Promise<Array<{ accountId: string; pending: number; inFlight: number }>> {
    const accounts = await this.redis.smembers(this.accountsKey(network));
    if (accounts.length === 0) return [];
    const now = Date.now();
    const pipeline = this.redis.pipeline();
    for (const accountId of accounts) {
      pipeline.scard(this.pendingKey(network, accountId));
      pipeline.zcount(this.inFlightKey(network, accountId), now, '+inf');
    }
    const replies = (await pipeline.exec()) ?? [];
    return accounts.map((accountId, i) => ({
      accountId,
      pending: Number(replies[2 * i]?.[1] ?? 0),
      inFlight: Number(replies[2 * i + 1]?.[1] ?? 0),
    }));
  }

  /**
   * Takes off the pending sets the operations Postgres says are settled or unknown (their job
   * completed without the news reaching Redis: a worker killed in between), up to `sample` per
   * account per call, and forgets accounts left with nothing pending. Returns how many it took off.
   */
  async prune(
    network: ConcreteNetwork,
    unsettled: (operationIds: string[]) => Promise<Set<string>>,
    sample = PRUNE_SAMPLE,
  ): Promise<number> {
    let pruned = 0;
    for (const accountId of await this.redis.smembers(this.accountsKey(network))) {
      const pendingKey = this.pendingKey(network, accountId);
      const ids = await this.redis.srandmember(pendingKey, sample);
      const live = ids.length ? await unsettled(ids) : new Set<string>();
      const done = ids.filter((id) => !live.has(id));
      if (done.length) pruned += await this.redis.srem(pendingKey, ...done);
      await this.redis.backlogForgetIfIdle(
        this.accountsKey(network),
        pendingKey,
        this.lineKey(network, accountId),
        accountId,
      );
    }
    return pruned;
  }

  // A network's keys share one hash tag, so each script (and each pipeline of `renewSlots` and
  // `depths`) stays within one Redis Cluster slot; the networks spread over the nodes.
  private accountsKey(network: ConcreteNetwork): string {
    return `${this.prefix}:backlog:{${network}}:accounts`;
  }

  private pendingKey(network: ConcreteNetwork, accountId: string): string {
    return `${this.prefix}:backlog:{${network}}:${accountId}:pending`;
  }

  private inFlightKey(network: ConcreteNetwork, accountId: string): string {
    return `${this.prefix}:backlog:{${network}}:${accountId}:in-flight`;
  }

  private lineKey(network: ConcreteNetwork, accountId: string): string {
    return `${this.prefix}:backlog:{${network}}:${accountId}:line`;
  }
}

/** A job in an account's line for an in-flight slot. */
export interface LineEntry {
  queueName: string;
  jobId: string;
}

function lineEntry({ queueName, jobId }: LineEntry): string {
  return `${queueName} ${jobId}`;
}

function parseLineEntry(entry: string): LineEntry {
  const space = entry.indexOf(' ');
  return { queueName: entry.slice(0, space), jobId: entry.slice(space + 1) };
}

const PRUNE_SAMPLE = 500;

type BacklogCommands = {
  backlogRegister(...keysThenArgs: (string | number)[]): Promise<[number, number]>;
  backlogTakeSlot(...keysThenArgs: (string | number)[]): Promise<[number, number, number]>;
  backlogReleaseSlot(...keysThenArgs: (string | number)[]): Promise<string | null>;
  backlogForgetIfIdle(...keysThenArgs: string[]): Promise<number>;
};

/**
 * KEYS: accounts, pending, in-flight. ARGV: account id, operation id, now. Returns {pending
 * count, slots held (unexpired)}.
 */
const REGISTER = `
redis.call('SADD', KEYS[2], ARGV[2])
redis.call('SADD', KEYS[1], ARGV[1])
return {redis.call('SCARD', KEYS[2]), redis.call('ZCOUNT', KEYS[3], ARGV[3], '+inf')}`;

/**
 * KEYS: in-flight, pending, line. ARGV: operation id, now, hold-until, cap, line entry ('' for
 * none). Expired slots (their worker died) are dropped first. Taken: the entry leaves the line;
 * not taken: it joins the line, keeping its place if it is in it. Returns {taken (1 or 0),
 * pending count, entries ahead in the line}.
 */
const TAKE_SLOT = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[2])
if redis.call('ZSCORE', KEYS[1], ARGV[1]) or redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[4]) then
  redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
  if ARGV[5] ~= '' then redis.call('ZREM', KEYS[3], ARGV[5]) end
  return {1, redis.call('SCARD', KEYS[2]), 0}
end
local ahead = 0
if ARGV[5] ~= '' then
  redis.call('ZADD', KEYS[3], 'NX', ARGV[2], ARGV[5])
  ahead = redis.call('ZRANK', KEYS[3], ARGV[5])
end
return {0, redis.call('SCARD', KEYS[2]), ahead}`;

/**
 * KEYS: in-flight, pending, line. ARGV: operation id, completed (1 or 0). Frees the slot and
 * returns the first entry of the line, taken off it (false when the line is empty).
 */
const RELEASE_SLOT = `
redis.call('ZREM', KEYS[1], ARGV[1])
if ARGV[2] == '1' then redis.call('SREM', KEYS[2], ARGV[1]) end
local first = redis.call('ZPOPMIN', KEYS[3])
return first[1] or false`;

/**
 * KEYS: accounts, pending, line. ARGV: account id. Atomic, so a concurrent REGISTER is never
 * lost. An idle account's line holds only entries of jobs long gone.
 */
const FORGET_IF_IDLE = `
if redis.call('SCARD', KEYS[2]) == 0 then
  redis.call('SREM', KEYS[1], ARGV[1])
  redis.call('DEL', KEYS[3])
end
return 0`;
