import { randomUUID } from 'node:crypto';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Keeps a caller's request id when it is safe to echo back and log, else makes a new one. */
export function requestIdFrom(header: string | string[] | undefined): string {
  const value = Array.isArray(header) ? header[0] : header;
  return value && REQUEST_ID.test(value) ? value : randomUUID();
}

export function newId(): string {
  return randomUUID();
}
