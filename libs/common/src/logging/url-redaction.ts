import { API_KEY_PREFIX } from '../api-key-shape';
import { REDACTED } from './create-logger';

/**
 * Query parameter names that carry credentials, compared lower-cased with `-`, `_` and `.`
 * taken out (`api-key`, `API_KEY`, `x.api.key`). Redacting a harmless parameter by mistake
 * costs a log reader little; missing a credential leaks it to everyone who reads the logs.
 */
const SECRET_NAME =
  /key|token|secret|passw|pwd|auth|session|signature|^sig$|credential|mnemonic|seed/;

/** An API key wherever it stands in a URL: path, a parameter of any name, a fragment. */
const API_KEY_ANYWHERE = new RegExp(`${API_KEY_PREFIX}[A-Za-z0-9_%-]+`, 'g');

/**
 * A URL (or a request target: path and query) fit for a log line: the values of credential-named
 * query parameters and anything shaped like an API key replaced by `[Redacted]`. A URL without a
 * query or a key comes back as it is, without being copied.
 */
export function redactUrl(url: string): string {
  const queryStart = url.indexOf('?');
  const redacted =
    queryStart === -1 ? url : url.slice(0, queryStart + 1) + redactQuery(url.slice(queryStart + 1));
  return redacted.includes(API_KEY_PREFIX)
    ? redacted.replace(API_KEY_ANYWHERE, REDACTED)
    : redacted;
}

/** Whether a query parameter of this name (as written in the URL) carries a credential. */
export function isSecretParameter(rawName: string): boolean {
  return SECRET_NAME.test(parameterName(rawName).replace(/[-_.]/g, ''));
}

function redactQuery(query: string): string {
  return query
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      if (equals === -1 || !isSecretParameter(pair.slice(0, equals))) return pair;
      return `${pair.slice(0, equals)}=${REDACTED}`;
    })
    .join('&');
}

function parameterName(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' ')).toLowerCase();
  } catch {
    return raw.toLowerCase();
  }
}
