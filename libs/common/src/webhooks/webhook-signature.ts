import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com): HMAC-SHA256 over
 * `${id}.${timestamp}.${body}`, keyed by the base64 part of a `whsec_` secret, sent as
 * `webhook-signature: v1,<base64>` (several space-separated during a secret's rotation).
 */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/** How far a delivery's timestamp may be from the receiver's clock (replay protection). */
export const WEBHOOK_TIMESTAMP_TOLERANCE_SECONDS = 5 * 60;

export interface WebhookHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/** One `v1,<base64>` signature of a message with one secret. */
export function webhookSignature(
  secret: string,
  id: string,
  timestamp: number,
  body: string,
): string {
  const mac = createHmac('sha256', secretKey(secret))
    .update(`${id}.${timestamp}.${body}`, 'utf8')
    .digest('base64');
  return `v1,${mac}`;
}

/** The three headers of a delivery, signed with every given secret (the new one first). */
export function signWebhook(
  secrets: readonly string[],
  id: string,
  timestamp: number,
  body: string,
): WebhookHeaders {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((s) => webhookSignature(s, id, timestamp, body)).join(' '),
  };
}

export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

/**
 * What a receiver runs on each request: true when one of the `webhook-signature` entries is the
 * signature of this exact raw body, id and timestamp under one of `secrets`, and the timestamp is
 * within the tolerance of `now`. Throws a WebhookVerificationError saying what is wrong otherwise.
 * Pass the raw body as received (bytes or text), not a re-serialized object.
 */
export function verifyWebhookSignature(
  secrets: string | readonly string[],
  headers: Record<string, string | string[] | undefined>,
  rawBody: string | Buffer,
  options: { now?: Date; toleranceSeconds?: number } = {},
): true {
  const id = single(headers['webhook-id']);
  const timestampText = single(headers['webhook-timestamp']);
  const signatures = single(headers['webhook-signature']);
  if (!id || !timestampText || !signatures) {
    throw new WebhookVerificationError('Missing webhook-id, webhook-timestamp or signature');
  }
  if (!/^[0-9]{1,15}$/.test(timestampText)) {
    throw new WebhookVerificationError('Invalid webhook-timestamp');
  }
  const timestamp = Number(timestampText);
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  const tolerance = options.toleranceSeconds ?? WEBHOOK_TIMESTAMP_TOLERANCE_SECONDS;
  if (Math.abs(now - timestamp) > tolerance) {
    throw new WebhookVerificationError('Timestamp outside the tolerance');
  }
  const body = typeof rawBody === 'string' ? rawBody : rawBody.toString('utf8');
  const presented = signatures
    .split(' ')
    .filter((entry) => entry.startsWith('v1,'))
    .map((entry) => Buffer.from(entry.slice(3), 'base64'));
  for (const secret of typeof secrets === 'string' ? [secrets] : secrets) {
    const expected = Buffer.from(webhookSignature(secret, id, timestamp, body).slice(3), 'base64');
    if (presented.some((mac) => mac.length === expected.length && timingSafeEqual(mac, expected))) {
      return true;
    }
  }
  throw new WebhookVerificationError('No matching signature');
}

function secretKey(secret: string): Buffer {
  const encoded = secret.startsWith(WEBHOOK_SECRET_PREFIX)
    ? secret.slice(WEBHOOK_SECRET_PREFIX.length)
    : secret;
  return Buffer.from(encoded, 'base64');
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
