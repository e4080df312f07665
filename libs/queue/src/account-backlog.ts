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
 * - `reserved`: the ids of operations whose job went to the queue for a slot that no one else
 *   may take meanwhile (queued with a slot free, or handed a freed one), each with an expiry;
 * - `line`: the jobs waiting (delayed) for a slot, first come first; each freed slot brings the
 *   first back at once, and its delay is only a fallback (a lost hand-over).
 *
 * An account's slots held and reserved together stay within its cap, so its jobs in the queue
 * are those that will find a slot when fetched: before reservations, a job queued while a slot
 * was free often found it taken by a job handed that slot, and was fetched only to be put back
 * (more put-backs than runs while a flood came in: `bench:fairness`, 2026-11-29).
 */
export class AccountBacklog {
  private readonly redis: RedisConnection & BacklogCommands;

  constructor(
    redis: RedisConnection,
    private readonly prefix: string,
  ) {
    // Defined commands run by EVALSHA (ioredis sends the source once, on NOSCRIPT): a script's
    // text is not sent and hashed again at each of the three calls a job makes.
    redis.defineCommand('backlogRegister', { numberOfKeys: 4, lua: REGISTER });
    redis.defineCommand('backlogTakeSlot', { numberOfKeys: 4, lua: TAKE_SLOT });
    redis.defineCommand('backlogReleaseSlot', { numberOfKeys: 4, lua: RELEASE_SLOT });
    redis.defineCommand('backlogPassOn', { numberOfKeys: 2, lua: PASS_ON });
    redis.defineCommand('backlogForgetIfIdle', { numberOfKeys: 4, lua: FORGET_IF_IDLE });
    this.redis = redis as RedisConnection & BacklogCommands;
  }

  /**
   * Counts the operation as pending (once, however often it is enqueued), and reserves it one of
   * the account's `cap` slots for `holdMs` when one is neither held nor reserved: `lined` when
   * none is (its job is to wait in the line rather than be queued), and the pending count. An
   * operation holding a slot or a reservation already keeps it.
   */
  async register(
    network: ConcreteNetwork,
    accountId: string,
    operationId: string,
    { cap, holdMs }: SlotLimits,
  ): Promise<{ pending: number; lined: boolean }> {
    const now = Date.now();
    const [pending, lined] = await this.redis.backlogRegister(
      this.accountsKey(network),
      this.pendingKey(network, accountId),
      this.inFlightKey(network, accountId),
      this.reservedKey(network, accountId),
      accountId,
      operationId,
      now,
      now + holdMs,
      cap,
    );
    return { pending, lined: lined === 1 };
  }

  /** Puts a job (delayed already) in its account's line for a slot, keeping a place it has. */
  async lineUp(network: ConcreteNetwork, accountId: string, entry: LineEntry): Promise<void> {
    await this.redis.zadd(this.lineKey(network, accountId), 'NX', Date.now(), lineEntry(entry));
  }

  /**
   * Takes one of the account's `cap` in-flight slots for the operation (kept if it holds one, its
   * reservation's if it has one): `{ taken: false, pending, ahead }` when all are held or
   * reserved by other operations. Given the job's
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
      this.reservedKey(network, accountId),
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
   * hands it to the job first in the account's line, taken off the line and its slot reserved
   * for `holdMs`: the caller brings it back to the queue now, rather than at the end of its delay.
   */
  async releaseSlot(
    network: ConcreteNetwork,
    accountId: string,
    operationId: string,
    completed: boolean,
    holdMs: number,
  ): Promise<LineEntry | null> {
    const next = await this.redis.backlogReleaseSlot(
      this.inFlightKey(network, accountId),
      this.pendingKey(network, accountId),
      this.lineKey(network, accountId),
      this.reservedKey(network, accountId),
      operationId,
      completed ? 1 : 0,
      Date.now() + holdMs,
    );
    return next ? parseLineEntry(next) : null;
  }

  /**
   * The job handed a slot (`handed`) could not come: its reservation passes to the next job in
   * the line, taken off it (null when the line is empty, or when `handed` took its slot by
   * itself). `last`: no next one is wanted, the reservation is only dropped.
   */
  async passOn(
    network: ConcreteNetwork,
    accountId: string,
    handed: LineEntry,
    holdMs: number,
    last = false,
  ): Promise<LineEntry | null> {
    const next = await this.redis.backlogPassOn(
      this.reservedKey(network, accountId),
      this.lineKey(network, accountId),
      handed.jobId,
      Date.now() + holdMs,
      last ? 1 : 0,
    );
    return next ? parseLineEntry(next) : null;
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
        this.reservedKey(network, accountId),
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

  private reservedKey(network: ConcreteNetwork, accountId: string): string {
    return `${this.prefix}:backlog:{${network}}:${accountId}:reserved`;
  }
}

/** An account's in-flight cap on a network, and how long a slot is held without renewal. */
export interface SlotLimits {
  cap: number;
  holdMs: number;
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
  backlogPassOn(...keysThenArgs: (string | number)[]): Promise<string | null>;
  backlogForgetIfIdle(...keysThenArgs: string[]): Promise<number>;
};

/**
 * A Lua function of the scripts: drops the slots and reservations whose hold lapsed (a killed
 * worker's, a job that never came), and returns how many are left, held and reserved.
 */
const DROP_LAPSED = `
local function dropLapsed(inFlight, reserved, now)
  redis.call('ZREMRANGEBYSCORE', inFlight, '-inf', now)
  redis.call('ZREMRANGEBYSCORE', reserved, '-inf', now)
  return redis.call('ZCARD', inFlight) + redis.call('ZCARD', reserved)
end`;

/** A Lua function: the operation id of a line entry (`<queue name> <job id>`, the job's id). */
const ENTRY_OPERATION = `
local function entryOperation(entry)
  return string.match(entry, ' (.+)$')
end`;

/**
 * KEYS: accounts, pending, in-flight, reserved. ARGV: account id, operation id, now, hold-until,
 * cap. Returns {pending count, lined (1: no slot to reserve, or 0)}.
 */
const REGISTER = `${DROP_LAPSED}
redis.call('SADD', KEYS[2], ARGV[2])
redis.call('SADD', KEYS[1], ARGV[1])
local pending = redis.call('SCARD', KEYS[2])
local taken = dropLapsed(KEYS[3], KEYS[4], ARGV[3])
if redis.call('ZSCORE', KEYS[3], ARGV[2]) or redis.call('ZSCORE', KEYS[4], ARGV[2]) then
  return {pending, 0}
end
if taken < tonumber(ARGV[5]) then
  redis.call('ZADD', KEYS[4], ARGV[4], ARGV[2])
  return {pending, 0}
end
return {pending, 1}`;

/**
 * KEYS: in-flight, pending, line, reserved. ARGV: operation id, now, hold-until, cap, line entry
 * ('' for none). Lapsed slots and reservations are dropped first. Taken (the operation's slot,
 * or its reservation while fewer than `cap` run, or one neither held nor reserved): the entry
 * leaves the line; not taken: it joins the line, keeping its place if it is in it, and its
 * reservation is dropped. The cap is the worker's: a reservation made under another (an API
 * configured apart) never lets more than `cap` run. Returns {taken (1 or 0), pending count, entries
 * ahead in the line}.
 */
const TAKE_SLOT = `${DROP_LAPSED}
dropLapsed(KEYS[1], KEYS[4], ARGV[2])
local cap = tonumber(ARGV[4])
local holds = redis.call('ZSCORE', KEYS[1], ARGV[1])
local reserved = redis.call('ZREM', KEYS[4], ARGV[1]) == 1
local running = redis.call('ZCARD', KEYS[1])
if holds or (reserved and running < cap) or running + redis.call('ZCARD', KEYS[4]) < cap then
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
 * KEYS: in-flight, pending, line, reserved. ARGV: operation id, completed (1 or 0), hold-until.
 * Frees the slot and returns the first entry of the line, taken off it with the slot reserved
 * for it (false when the line is empty).
 */
const RELEASE_SLOT = `${ENTRY_OPERATION}
redis.call('ZREM', KEYS[1], ARGV[1])
if ARGV[2] == '1' then redis.call('SREM', KEYS[2], ARGV[1]) end
local first = redis.call('ZPOPMIN', KEYS[3])
if not first[1] then return false end
redis.call('ZADD', KEYS[4], ARGV[3], entryOperation(first[1]))
return first[1]`;

/**
 * KEYS: reserved, line. ARGV: the handed operation id, hold-until, last (1 or 0). Its reservation
 * (none if it took its slot meanwhile: then false) passes to the next entry of the line, taken
 * off it, or with `last` is dropped.
 */
const PASS_ON = `${ENTRY_OPERATION}
if redis.call('ZREM', KEYS[1], ARGV[1]) == 0 or ARGV[3] == '1' then return false end
local next = redis.call('ZPOPMIN', KEYS[2])
if not next[1] then return false end
redis.call('ZADD', KEYS[1], ARGV[2], entryOperation(next[1]))
return next[1]`;

/**
 * KEYS: accounts, pending, line, reserved. ARGV: account id. Atomic, so a concurrent REGISTER is
 * never lost. An idle account's line and reservations are only of jobs long gone.
 */
const FORGET_IF_IDLE = `
if redis.call('SCARD', KEYS[2]) == 0 then
  redis.call('SREM', KEYS[1], ARGV[1])
  redis.call('DEL', KEYS[3], KEYS[4])
end
return 0`;
