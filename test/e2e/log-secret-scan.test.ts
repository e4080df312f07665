import { randomBytes } from 'node:crypto';
import bs58 from 'bs58';
import { findSecrets, HandedOutSecrets, secretForms } from '@test/support/secret-scan';

const apiKey = 'ais_' + randomBytes(32).toString('base64url');
const webhookSecret = 'whsec_' + randomBytes(32).toString('base64');
const solanaSecret = bs58.encode(randomBytes(64));
const evmSecret = '0x' + randomBytes(32).toString('hex');
const sessionToken = randomBytes(32).toString('base64url');

/** A log line as the services write them, with `planted` in its message. */
const logWith = (planted: string): string =>
  `{"level":"info","msg":"request completed"}\n{"level":"warn","msg":"saw ${planted} here"}\n`;

/**
 * The log scan that every e2e suite runs once done (log-secret-scan.setup.ts) can fail: it finds
 * a secret planted in a log in each form it looks for, and only the secrets it was handed.
 */
describe('the log scan for handed-out secrets', () => {
  const secrets = [
    { label: 'API key', value: apiKey },
    { label: 'webhook secret', value: webhookSecret },
    { label: 'wallet secret key', value: solanaSecret },
    { label: 'wallet secret key', value: evmSecret },
    { label: 'session token', value: sessionToken },
  ];

  it.each(secrets)('finds a $label in every form', ({ label, value }) => {
    const forms = secretForms(value);
    expect(forms.map(([form]) => form)).toEqual(
      expect.arrayContaining([
        'clear',
        'hex of the text',
        'base64 of the text',
        'hex of its bytes',
      ]),
    );
    for (const [form, written] of forms) {
      const text = logWith(form.startsWith('hex') ? written.toUpperCase() : written);
      expect(findSecrets([{ label, value }], [{ source: 'api', text }])).toContainEqual({
        label,
        form,
        source: 'api',
        line: 2,
      });
    }
  });

  it('finds the bytes of a Solana key in base58, base64 and hex', () => {
    const bytes = Buffer.from(bs58.decode(solanaSecret));
    for (const written of [bytes.toString('base64'), bytes.toString('hex')]) {
      const sightings = findSecrets(secrets, [{ source: 'worker', text: logWith(written) }]);
      // A base64 without + or / starts with the base64url of the same bytes: seen in both forms.
      expect(sightings.length).toBeGreaterThanOrEqual(1);
      expect(sightings.every((sighting) => sighting.label === 'wallet secret key')).toBe(true);
      expect(sightings.map((sighting) => sighting.form)).toContain(
        written.length === 128 ? 'hex of its bytes' : 'base64 of its bytes',
      );
    }
  });

  it('finds nothing in logs without them', () => {
    const clean = logWith('ais_[Redacted]') + logWith(randomBytes(32).toString('base64url'));
    expect(findSecrets(secrets, [{ source: 'api', text: clean }])).toEqual([]);
  });

  it('collects what responses hand out: keys, webhook and wallet secrets, session cookies', () => {
    const handedOut = new HandedOutSecrets();
    handedOut.collect(
      { success: true, data: { key: apiKey, webhook: { secret: webhookSecret } } },
      new Headers({ 'set-cookie': `ais_session=${sessionToken}; Path=/; HttpOnly` }),
    );
    handedOut.collect({ data: { public_key: 'x', secret_key: solanaSecret } }, new Headers());
    expect(handedOut.all.map((secret) => secret.value).sort()).toEqual(
      [apiKey, webhookSecret, sessionToken, solanaSecret].sort(),
    );
  });
});
