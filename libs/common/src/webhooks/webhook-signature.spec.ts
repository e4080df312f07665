import { createHmac } from 'node:crypto';
import {
  signWebhook,
  verifyWebhookSignature,
  WebhookVerificationError,
  webhookSignature,
} from './webhook-signature';

const secret = 'whsec_' + Buffer.alloc(32, 1).toString('base64');
const other = 'whsec_' + Buffer.alloc(32, 2).toString('base64');
const now = new Date('2026-01-01T00:00:00Z');
const timestamp = Math.floor(now.getTime() / 1000);
const body = '{"id":"evt_1","type":"operation.confirmed"}';

describe('webhook signatures', () => {
  it('signs HMAC-SHA256 of id.timestamp.body with the base64-decoded secret', () => {
    const expected = createHmac('sha256', Buffer.alloc(32, 1))
      .update(`evt_1.${timestamp}.${body}`)
      .digest('base64');
    expect(webhookSignature(secret, 'evt_1', timestamp, body)).toBe(`v1,${expected}`);
  });

  it('matches the Standard Webhooks reference vector', () => {
    // From the Standard Webhooks specification's test vectors.
    const signature = webhookSignature(
      'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      'msg_p5jXN8AQM9LWM0D4loKWxJek',
      1614265330,
      '{"test": 2432232314}',
    );
    expect(signature).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('verifies its own headers, with either secret during a rotation', () => {
    const headers = signWebhook([secret, other], 'evt_1', timestamp, body);
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(verifyWebhookSignature(secret, { ...headers }, body, { now })).toBe(true);
    expect(verifyWebhookSignature(other, { ...headers }, Buffer.from(body), { now })).toBe(true);
    expect(verifyWebhookSignature([other, secret], { ...headers }, body, { now })).toBe(true);
  });

  it.each([
    ['another secret', () => signWebhook([other], 'evt_1', timestamp, body), body, {}],
    ['a changed body', () => signWebhook([secret], 'evt_1', timestamp, body), body + ' ', {}],
    [
      'a changed id',
      () => ({ ...signWebhook([secret], 'evt_1', timestamp, body), 'webhook-id': 'evt_2' }),
      body,
      {},
    ],
    [
      'a timestamp over 5 minutes old',
      () => signWebhook([secret], 'evt_1', timestamp - 301, body),
      body,
      {},
    ],
    [
      'a timestamp over 5 minutes ahead',
      () => signWebhook([secret], 'evt_1', timestamp + 301, body),
      body,
      {},
    ],
    [
      'a missing signature',
      () => ({ ...signWebhook([secret], 'evt_1', timestamp, body), 'webhook-signature': '' }),
      body,
      {},
    ],
    [
      'a signature of another version',
      () => {
        const headers = signWebhook([secret], 'evt_1', timestamp, body);
        return {
          ...headers,
          'webhook-signature': headers['webhook-signature'].replace('v1', 'v2'),
        };
      },
      body,
      {},
    ],
  ])('refuses %s', (_, headersOf, received, extra) => {
    expect(() =>
      verifyWebhookSignature(secret, { ...headersOf() }, received, { now, ...extra }),
    ).toThrow(WebhookVerificationError);
  });

  it('accepts a timestamp within the tolerance', () => {
    const headers = signWebhook([secret], 'evt_1', timestamp - 299, body);
    expect(verifyWebhookSignature(secret, { ...headers }, body, { now })).toBe(true);
  });
});
