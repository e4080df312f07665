import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { Transaction } from 'ethers';

/**
 * An HTTP JSON-RPC proxy in front of anvil that caps how many pending transactions one sender
 * may have, as public nodes do (anvil has no such limit). Every call but
 * `eth_sendRawTransaction` passes through unchanged, as does every request without one.
 */
export interface SenderCapProxy {
  /** The target URL with its port replaced by the proxy's. */
  readonly url: string;
  close(): Promise<void>;
}

export interface SenderCapProxyOptions {
  /** How many pending transactions one sender may have (at least 1). */
  cap: number;
}

/**
 * geth's answer to a transaction over a per-account limit: `txpool.ErrAccountLimitExceeded`,
 * "account limit exceeded" (go-ethereum core/txpool/errors.go), returned by
 * `ValidateTransactionWithState` (core/txpool/validation.go) as
 * `fmt.Errorf("%w: pooled %d txs", ErrAccountLimitExceeded, used)` when a transaction takes a
 * new nonce and the pool's `UsedAndLeftSlots` leaves the sender none; a replacement of a nonce
 * it already holds is not counted. geth's blob pool sets that callback; its legacy pool
 * (core/txpool/legacypool/legacypool.go) passes nil, since its `AccountSlots` are not a limit at
 * the door: past them it evicts later, and its only refusals at the door are the whole pool's
 * ("txpool is full") and a delegated account's one in-flight transaction ("in-flight
 * transaction limit reached for delegated accounts", also replacements only). Of those, the
 * account limit is the closest to a node capping one sender, so it is the one answered here.
 * The error implements no `ErrorCode()`, so geth's RPC layer sends it with its default code,
 * -32000 (rpc/errors.go `errcodeDefault`), and `SendTx` (eth/api_backend.go) passes it on
 * (not one of the temporary rejections `locals.IsTemporaryReject` hides).
 */
export const ACCOUNT_LIMIT_CODE = -32000;
export function accountLimitMessage(pooled: number): string {
  return `account limit exceeded: pooled ${pooled} txs`;
}

const UPSTREAM_TIMEOUT_MS = 30_000;

interface Call {
  jsonrpc?: string;
  id?: unknown;
  method?: unknown;
  params?: unknown;
}

interface Answer {
  jsonrpc: '2.0';
  id: unknown;
  result?: unknown;
  error?: { code: number; message: string };
}

/**
 * The cap counts nonces from the sender's mined count: a transaction whose nonce is `cap` or
 * more past it is refused, any lower one goes through (a replacement of a pending nonce, a new
 * one while the pool has room). While the sender's pending nonces are contiguous, as a client
 * sending in nonce order keeps them, that is "a new nonce is refused while `cap` are pending",
 * as geth counts (and the refusal says `pooled <cap> txs`); with a gap, the nonces below the cap
 * stay open, so transactions sent out of order cannot take every slot and lock the sender out
 * until the gap is filled. Nothing is remembered between requests but decoded senders: the
 * mined count is read afresh for each request that sends.
 */
export async function startSenderCapProxy(
  targetUrl: string,
  opts: SenderCapProxyOptions,
): Promise<SenderCapProxy> {
  if (!Number.isInteger(opts.cap) || opts.cap < 1) {
    throw new Error(`the sender cap must be a positive integer, got ${opts.cap}`);
  }
  const target = new URL(targetUrl);
  const senderCache = new SenderCache();
  const server = createServer((request, response) => {
    void handle(request, response).catch(() => {
      // anvil unreachable (stopping, restarting): the client sees the node go away, as it would.
      request.socket.destroy();
    });
  });
  // A node keeps idle keep-alive connections open longer than Node's 5 s default (geth: 120 s);
  // closing one a client is about to reuse would pass for a node failure (ECONNRESET).
  server.keepAliveTimeout = 120_000;

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const body = await readBody(request);
    const calls = sendsIn(body);
    if (!calls) {
      const upstream = await post(body);
      return reply(response, upstream.status, upstream.text);
    }
    const refusals = await refusalsOf(calls);
    if (refusals.every((refusal) => refusal === null)) {
      const upstream = await post(body);
      return reply(response, upstream.status, upstream.text);
    }
    if (!Array.isArray(calls.parsed)) {
      return reply(
        response,
        200,
        calls.list[0].id === undefined ? '' : JSON.stringify(refusals[0]),
      );
    }
    // A batch: the calls not refused go on as a batch of their own, and the answers come back
    // in the batch's order, the refusals among them.
    const passed = calls.list.filter((_, index) => refusals[index] === null);
    const answers = passed.length > 0 ? await answersOf(passed) : [];
    const byId = new Map<string, Answer[]>();
    for (const answer of answers) {
      const key = JSON.stringify(answer.id);
      byId.set(key, [...(byId.get(key) ?? []), answer]);
    }
    const merged: Answer[] = [];
    calls.list.forEach((call, index) => {
      if (call.id === undefined) return; // a notification is not answered
      const answer = refusals[index] ?? byId.get(JSON.stringify(call.id))?.shift();
      if (answer) merged.push(answer);
    });
    return reply(response, 200, merged.length > 0 ? JSON.stringify(merged) : '');
  }

  /** For each call, geth's answer when it is a send over the cap, or null. */
  async function refusalsOf(calls: ParsedCalls): Promise<(Answer | null)[]> {
    const sends = calls.list.map((call) => decodeSend(call, senderCache));
    const senders = [...new Set(sends.flatMap((send) => (send ? [send.from] : [])))];
    const mined = await minedCounts(senders);
    return calls.list.map((call, index) => {
      const send = sends[index];
      if (!send) return null;
      if (send.nonce < mined.get(send.from)! + opts.cap) return null;
      return {
        jsonrpc: '2.0',
        id: call.id ?? null,
        error: { code: ACCOUNT_LIMIT_CODE, message: accountLimitMessage(opts.cap) },
      };
    });
  }

  /** Each sender's mined nonce count (where its window of `cap` nonces starts), in one batch. */
  async function minedCounts(senders: string[]): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    if (senders.length === 0) return counts;
    const answers = await answersOf(
      senders.map((sender, id) => ({
        jsonrpc: '2.0',
        id,
        method: 'eth_getTransactionCount',
        params: [sender, 'latest'],
      })),
    );
    const byId = new Map(answers.map((answer) => [Number(answer.id), answer]));
    senders.forEach((sender, id) => {
      const answer = byId.get(id);
      if (typeof answer?.result !== 'string') {
        throw new Error(`eth_getTransactionCount of ${sender}: ${JSON.stringify(answer)}`);
      }
      counts.set(sender, Number(answer.result));
    });
    return counts;
  }

  async function answersOf(calls: Call[]): Promise<Answer[]> {
    const upstream = await post(JSON.stringify(calls));
    const parsed = JSON.parse(upstream.text) as unknown;
    return Array.isArray(parsed) ? (parsed as Answer[]) : [parsed as Answer];
  }

  async function post(body: string): Promise<{ status: number; text: string }> {
    const response = await fetch(target, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      signal: AbortSignal.timeout(UPSTREAM_TIMEOUT_MS),
    });
    return { status: response.status, text: await response.text() };
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: targetUrl.replace(`:${target.port}`, `:${port}`),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

interface ParsedCalls {
  parsed: unknown;
  list: Call[];
}

/** The request's calls when it sends a transaction; null for anything else (passed through). */
function sendsIn(body: string): ParsedCalls | null {
  // Most requests (reads, polls) are passed through without being parsed.
  if (!body.includes('eth_sendRawTransaction')) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return null; // anvil answers a request it cannot read
  }
  const list = (Array.isArray(parsed) ? parsed : [parsed]) as unknown[];
  if (list.length === 0 || !list.every((call) => typeof call === 'object' && call !== null)) {
    return null;
  }
  return { parsed, list };
}

/** The sender and nonce of a well-formed `eth_sendRawTransaction`; null for any other call. */
function decodeSend(call: Call, cache: SenderCache): { from: string; nonce: number } | null {
  if (call.method !== 'eth_sendRawTransaction' || !Array.isArray(call.params)) return null;
  const [raw] = call.params as unknown[];
  if (typeof raw !== 'string') return null;
  return cache.decode(raw);
}

/** Decoded sends are remembered this many at a time (then forgotten all at once). */
const SENDER_CACHE_MAX = 10_000;

/**
 * Recovering a sender from its signature costs about 2 ms of CPU here, and clients send the
 * same bytes again and again while a sender is over the cap (every waiting transaction, each
 * block): what the same bytes decoded to is remembered.
 */
class SenderCache {
  private readonly decoded = new Map<string, { from: string; nonce: number } | null>();

  decode(raw: string): { from: string; nonce: number } | null {
    const known = this.decoded.get(raw);
    if (known !== undefined) return known;
    if (this.decoded.size >= SENDER_CACHE_MAX) this.decoded.clear();
    const send = decodeRaw(raw);
    this.decoded.set(raw, send);
    return send;
  }
}

function decodeRaw(raw: string): { from: string; nonce: number } | null {
  try {
    const tx = Transaction.from(raw);
    // An unsigned or undecodable transaction is anvil's to refuse, in its own words.
    return tx.from ? { from: tx.from.toLowerCase(), nonce: tx.nonce } : null;
  } catch {
    return null;
  }
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.once('error', reject);
  });
}

function reply(response: ServerResponse, status: number, text: string): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(text);
}
