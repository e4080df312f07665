import { randomUUID } from 'node:crypto';
import { errorLine } from './error-line';
import type { HttpClient } from '@test/support/http-client';

export type Chain = 'evm' | 'solana';

/** One mint of 1 unit to a fresh recipient, as a careful client sends and follows it. */
export interface MintRequest {
  chain: Chain;
  recipient: string;
  idempotencyKey: string;
  attempts: number;
  /** From the first attempt to the answer that carried the operation id (ms). */
  acceptMs?: number;
  operationId?: string;
  /** The last status GET /operations/{id} answered (unset until one answered). */
  status?: string;
  tx?: string | null;
  error?: string;
  /** Why the API never accepted it (a 4xx other than 429, or the client gave up). */
  refused?: string;
}

export function mintRequest(chain: Chain, recipient: string): MintRequest {
  return { chain, recipient, idempotencyKey: randomUUID(), attempts: 0 };
}

const ATTEMPT_TIMEOUT_MS = 30_000;
const SETTLED = new Set(['confirmed', 'failed']);

/**
 * POST /tokens/{mint}/mint with `Prefer: respond-async` and the request's Idempotency-Key, sent
 * again with the same key on a network error, a timeout, 429 or any 5xx (with backoff, and the
 * server's Retry-After where it gives one) until the API hands out an operation id or
 * `giveUpAt` passes. A retry can only ever return the first operation: that is the key's job.
 */
export async function sendUntilAccepted(
  baseUrl: string,
  apiKey: string,
  mint: string,
  request: MintRequest,
  giveUpAt: number,
): Promise<void> {
  const started = performance.now();
  const answer = await postUntilAnswered({
    url: `${baseUrl}/tokens/${mint}/mint`,
    apiKey,
    idempotencyKey: request.idempotencyKey,
    body: JSON.stringify({ amount: 1, recipient: request.recipient }),
    giveUpAt,
    onAttempt: () => (request.attempts += 1),
  });
  if ('gaveUp' in answer) {
    request.refused = `gave up after ${request.attempts} attempts`;
    return;
  }
  const id = answer.body?.data?.operation_id as string | undefined;
  if ((answer.status === 200 || answer.status === 202) && id) {
    request.operationId = id;
    request.status = answer.body.data.status as string;
    request.acceptMs = performance.now() - started;
    return;
  }
  request.refused = `${answer.status} ${answer.text.slice(0, 300)}`;
}

/** The first answer a retried POST got that is not worth retrying. */
export interface PostAnswer {
  status: number;
  headers: Headers;
  text: string;
  /** The JSON body, when it was JSON. */
  body: any;
}

/**
 * One POST with `Prefer: respond-async` and an Idempotency-Key, sent again with the same key and
 * body on a network error, a timeout, 429 or any 5xx (full-jitter backoff, or the server's
 * Retry-After) until another answer comes, or `{ gaveUp }` once `giveUpAt` (epoch ms) passes.
 */
export async function postUntilAnswered(post: {
  url: string;
  apiKey: string;
  idempotencyKey: string;
  body: string;
  giveUpAt: number;
  onAttempt: () => number;
}): Promise<PostAnswer | { gaveUp: true }> {
  for (;;) {
    const attempt = post.onAttempt();
    let retryAfterMs: number | undefined;
    try {
      const response = await fetch(post.url, {
        method: 'POST',
        headers: {
          'api-key': post.apiKey,
          'content-type': 'application/json',
          prefer: 'respond-async',
          'idempotency-key': post.idempotencyKey,
        },
        body: post.body,
        signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
      });
      const text = await response.text();
      if (response.status !== 429 && response.status < 500) {
        return { status: response.status, headers: response.headers, text, body: parseJson(text) };
      }
      const header = Number(response.headers.get('retry-after'));
      if (header > 0) retryAfterMs = header * 1000;
    } catch {
      // Connection refused or reset, or the attempt timed out: the request may or may not have
      // reached the API, which is exactly what the idempotency key settles.
    }
    if (Date.now() > post.giveUpAt) return { gaveUp: true };
    await sleep(retryAfterMs ?? backoffMs(attempt));
  }
}

/** Full jitter over 200 ms doubling up to 5 s. */
function backoffMs(attempt: number): number {
  return Math.random() * Math.min(5_000, 200 * 2 ** Math.min(attempt, 10));
}

/**
 * One sweep of GET /operations/{id} over the accepted requests not yet settled, `concurrency` at
 * a time; a failed read is left for the next sweep. Returns how many are still unsettled.
 */
export async function pollUnsettled(
  api: HttpClient,
  requests: MintRequest[],
  concurrency: number,
): Promise<number> {
  const pending = requests.filter((r) => r.operationId && !SETTLED.has(r.status ?? ''));
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < pending.length) {
        const request = pending[next++];
        try {
          const response = await api.get(`/operations/${request.operationId}`);
          if (response.status !== 200) continue;
          const data = response.body.data;
          request.status = data.status;
          request.tx = data.tx;
          if (data.error) request.error = errorLine(data.error);
        } catch {
          // The API is restarting or unreachable: the next sweep asks again.
        }
      }
    }),
  );
  return requests.filter((r) => r.operationId && !SETTLED.has(r.status ?? '')).length;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function parseJson(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
