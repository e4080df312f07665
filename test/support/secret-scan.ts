import bs58 from 'bs58';

/** A secret the service handed out, and what it is (for the report, never the secret itself). */
export interface HandedOutSecret {
  label: string;
  value: string;
}

/** Where a secret was found: in which of the texts, in which form, on which line. */
export interface SecretSighting {
  label: string;
  form: string;
  source: string;
  line: number;
}

/** Shorter than this, a "secret" is not one (and would match by chance). */
const SHORTEST_SECRET = 16;

/**
 * Every form a secret might be written in: the text as handed out, its UTF-8 in hex, base64 and
 * base64url, and the same encodings of the bytes it stands for (an API key's or a session
 * token's base64url, a webhook secret's base64, a Solana secret key's base58, an EVM private
 * key's hex), base58 included. Hex is compared without case.
 */
export function secretForms(secret: string): [form: string, text: string][] {
  const forms: [string, string][] = [['clear', secret]];
  const encodings = (name: string, bytes: Buffer, base58 = false): void => {
    forms.push(
      [`hex of ${name}`, bytes.toString('hex')],
      [`base64 of ${name}`, bytes.toString('base64')],
      [`base64url of ${name}`, bytes.toString('base64url')],
    );
    if (base58) forms.push([`base58 of ${name}`, bs58.encode(bytes)]);
  };
  encodings('the text', Buffer.from(secret, 'utf8'));
  const bytes = underlyingBytes(secret);
  if (bytes) encodings('its bytes', bytes, true);
  return forms.filter(([, text]) => text.length >= SHORTEST_SECRET);
}

/** The random bytes a secret's text encodes, by the shapes the service hands out. */
function underlyingBytes(secret: string): Buffer | undefined {
  if (secret.startsWith('ais_')) return Buffer.from(secret.slice('ais_'.length), 'base64url');
  if (secret.startsWith('whsec_')) return Buffer.from(secret.slice('whsec_'.length), 'base64');
  if (/^0x[0-9a-f]+$/i.test(secret)) return Buffer.from(secret.slice(2), 'hex');
  // A Solana secret key: 64 bytes in base58 (a session token is 43 characters of base64url).
  if (/^[1-9A-HJ-NP-Za-km-z]{80,}$/.test(secret)) return Buffer.from(bs58.decode(secret));
  if (/^[A-Za-z0-9_-]+$/.test(secret)) return Buffer.from(secret, 'base64url');
  return undefined;
}

/** Every place one of `secrets` stands, in any of its forms, in any of `texts`. */
export function findSecrets(
  secrets: readonly HandedOutSecret[],
  texts: readonly { source: string; text: string }[],
): SecretSighting[] {
  const sightings: SecretSighting[] = [];
  for (const { source, text } of texts) {
    const lower = text.toLowerCase();
    for (const secret of secrets) {
      for (const [form, written] of secretForms(secret.value)) {
        const at = form.startsWith('hex') ? lower.indexOf(written) : text.indexOf(written);
        if (at === -1) continue;
        const line = text.slice(0, at).split('\n').length;
        sightings.push({ label: secret.label, form, source, line });
      }
    }
  }
  return sightings;
}

/**
 * The secrets a test's HTTP clients were handed in responses: API keys (`key`), webhook secrets
 * (`secret`), wallet secret keys (`secret_key`) anywhere in a JSON body, and session tokens
 * from `Set-Cookie`.
 */
export class HandedOutSecrets {
  private readonly secrets = new Map<string, HandedOutSecret>();

  get all(): HandedOutSecret[] {
    return [...this.secrets.values()];
  }

  add(label: string, value: string): void {
    if (value.length >= SHORTEST_SECRET && !this.secrets.has(value)) {
      this.secrets.set(value, { label: `${label} #${this.secrets.size + 1}`, value });
    }
  }

  /** Takes the secrets a response hands out. */
  collect(body: unknown, headers: Headers): void {
    for (const cookie of headers.getSetCookie()) {
      const value = /^[^=]+=([^;]*)/.exec(cookie)?.[1];
      if (value) this.add('session token', decodeURIComponent(value));
    }
    this.collectFromJson(body, 0);
  }

  private collectFromJson(value: unknown, depth: number): void {
    if (depth > 8 || typeof value !== 'object' || value === null) return;
    for (const [name, field] of Object.entries(value)) {
      const label = SECRET_FIELDS[name];
      if (label && typeof field === 'string') this.add(label, field);
      else this.collectFromJson(field, depth + 1);
    }
  }
}

const SECRET_FIELDS: Readonly<Record<string, string>> = {
  key: 'API key',
  secret: 'webhook secret',
  secret_key: 'wallet secret key',
};

/** What one test file's HTTP clients were handed: scanned for in the logs once it is done. */
export const handedOutSecrets = new HandedOutSecrets();
