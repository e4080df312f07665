import { API_KEY_PREFIX } from '@app/common';

/** Query parameter names a client might put its API key under, lower-cased without `-`/`_`. */
const API_KEY_NAMES = new Set(['apikey', 'xapikey']);

export const API_KEY_IN_URL_MESSAGE =
  'Invalid api-key: an API key was sent in the URL, where it may be logged (by proxies, ' +
  'browsers and servers alike); send it in the api-key header, and revoke and replace this ' +
  'key as leaked.';

/** Whether a request target carries an API key in its query: by the parameter's name or the key's shape. */
export function apiKeyInUrl(url: string): boolean {
  const queryStart = url.indexOf('?');
  if (queryStart === -1) return false;
  const query = url.slice(queryStart + 1);
  if (query.includes(API_KEY_PREFIX)) return true;
  for (const name of new URLSearchParams(query).keys()) {
    if (API_KEY_NAMES.has(name.toLowerCase().replace(/[-_]/g, ''))) return true;
  }
  return false;
}
