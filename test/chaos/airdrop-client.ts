import { randomUUID } from 'node:crypto';
import { Keypair } from '@solana/web3.js';
import { getAddress, hexlify, randomBytes } from 'ethers';
import type { HttpClient } from '@test/support/http-client';
import { postUntilAnswered, type Chain } from './mint-client';

/** One entry of an airdrop: a fresh recipient and an amount no other entry has. */
export interface AirdropEntry {
  recipient: string;
  /** Whole units; the chaos tokens have 0 decimals, so also base units on chain. */
  amount: bigint;
}

/** What GET /batches/{id} answers (contract, "Airdrops"). */
export interface BatchView {
  batch_id: string;
  status: 'queued' | 'running' | 'completed' | 'completed_with_failures';
  total: number;
  counts: { queued: number; submitted: number; confirmed: number; failed: number };
  created_at: string;
  completed_at?: string;
}

/** One token airdrop, as a careful client sends it: one key, retried until accepted. */
export interface AirdropRequest {
  chain: Chain;
  token: string;
  entries: AirdropEntry[];
  idempotencyKey: string;
  attempts: number;
  /** From the first attempt to the answer that carried the batch id (ms). */
  acceptMs?: number;
  /** When it was accepted (performance.now()). */
  acceptedAt?: number;
  batchId?: string;
  /** Why the API never accepted it (a 4xx other than 429, or the client gave up). */
  refused?: string;
  /** Each deliberate replay of the accepted request: what it answered. */
  replays: Replay[];
  /** The last GET /batches/{id} answered. */
  batch?: BatchView;
  /** When the client first saw the batch completed (performance.now()). */
  completedSeenAt?: number;
}

export interface Replay {
  /** When it was sent: `after acceptance`, `after settlement`. */
  when: string;
  status: number | null;
  batchId: string | null;
  replayedHeader: boolean;
  /** Why this replay breaks the key's promise (unset when it kept it). */
  problem?: string;
}

/** `size` fresh recipients with amounts 1..size (distinct: a double or a swap shows). */
export function plannedAirdrop(chain: Chain, token: string, size: number): AirdropRequest {
  const entries = Array.from({ length: size }, (_, i) => ({
    recipient:
      chain === 'evm'
        ? getAddress(hexlify(randomBytes(20)))
        : Keypair.generate().publicKey.toBase58(),
    amount: BigInt(i + 1),
  }));
  return { chain, token, entries, idempotencyKey: randomUUID(), attempts: 0, replays: [] };
}

function bodyOf(request: AirdropRequest): string {
  return JSON.stringify({
    recipients: request.entries.map((e) => ({
      recipient: e.recipient,
      amount: e.amount.toString(),
    })),
  });
}

/**
 * POST /tokens/{mint}/airdrop with the request's Idempotency-Key, sent again with the same key
 * and body through every fault (network errors, timeouts, 429, 5xx) until the API answers with
 * a batch or `giveUpAt` passes.
 */
export async function sendAirdropUntilAccepted(
  baseUrl: string,
  apiKey: string,
  request: AirdropRequest,
  giveUpAt: number,
): Promise<void> {
  const started = performance.now();
  const answer = await postAirdrop(
    baseUrl,
    apiKey,
    request,
    giveUpAt,
    () => (request.attempts += 1),
  );
  if ('gaveUp' in answer) {
    request.refused = `gave up after ${request.attempts} attempts`;
    return;
  }
  const id = answer.body?.data?.batch_id as string | undefined;
  if (answer.status === 202 && id) {
    request.batchId = id;
    request.batch = answer.body.data as BatchView;
    request.acceptedAt = performance.now();
    request.acceptMs = request.acceptedAt - started;
    return;
  }
  request.refused = `${answer.status} ${answer.text.slice(0, 300)}`;
}

/** The request, with its Idempotency-Key, retried until answered or `giveUpAt` passes. */
function postAirdrop(
  baseUrl: string,
  apiKey: string,
  request: AirdropRequest,
  giveUpAt: number,
  onAttempt: () => number,
) {
  return postUntilAnswered({
    url: `${baseUrl}/tokens/${request.token}/airdrop`,
    apiKey,
    idempotencyKey: request.idempotencyKey,
    body: bodyOf(request),
    giveUpAt,
    onAttempt,
  });
}

/**
 * The accepted request sent again, as a client unsure of its first answer would: it must answer
 * the first batch (`idempotent-replayed: true`) and store nothing. Retried like the first.
 */
export async function replayAirdrop(
  baseUrl: string,
  apiKey: string,
  request: AirdropRequest,
  when: string,
  giveUpAt: number,
): Promise<Replay> {
  let attempts = 0;
  const answer = await postAirdrop(baseUrl, apiKey, request, giveUpAt, () => (attempts += 1));
  const replay: Replay =
    'gaveUp' in answer
      ? { when, status: null, batchId: null, replayedHeader: false }
      : {
          when,
          status: answer.status,
          batchId: (answer.body?.data?.batch_id as string | undefined) ?? null,
          replayedHeader: answer.headers.get('idempotent-replayed') === 'true',
        };
  if (replay.status === null) {
    replay.problem = `no answer after ${attempts} attempts`;
  } else if (replay.status !== 202 || replay.batchId !== request.batchId) {
    replay.problem = `answered ${replay.status} with batch ${replay.batchId}, not ${request.batchId}`;
  } else if (!replay.replayedHeader) {
    replay.problem = 'the same batch, but without idempotent-replayed: true';
  }
  request.replays.push(replay);
  return replay;
}

/** GET /batches/{id} once; a failed read leaves the last view (the API may be restarting). */
export async function refreshBatch(api: HttpClient, request: AirdropRequest): Promise<void> {
  if (!request.batchId) return;
  try {
    const response = await api.get(`/batches/${request.batchId}`);
    if (response.status !== 200) return;
    request.batch = response.body.data as BatchView;
    if (batchSettled(request) && request.completedSeenAt === undefined) {
      request.completedSeenAt = performance.now();
    }
  } catch {
    // Unreachable for now: the next sweep asks again.
  }
}

/** GET /batches/{id} twice a second from acceptance until it completes or `stop()` says so. */
export async function followBatch(
  api: HttpClient,
  request: AirdropRequest,
  stop: () => boolean,
): Promise<void> {
  while (!batchSettled(request) && !stop()) {
    await refreshBatch(api, request);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

export function batchSettled(request: AirdropRequest): boolean {
  const status = request.batch?.status;
  return status === 'completed' || status === 'completed_with_failures';
}
