import { createHash, randomBytes } from 'node:crypto';
import { API_KEY_PREFIX } from '@app/common';

/** A new API key: the prefix and 32 random bytes in base64url (256 bits). */
export function newApiKey(): string {
  return API_KEY_PREFIX + randomBytes(32).toString('base64url');
}

export function newSessionToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * Keys and session tokens are stored and looked up by their SHA-256: they are random, so a fast
 * hash is enough, and an index lookup by hash compares no secret byte by byte.
 */
export function tokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
