/** Where a newest-first page stopped: its last row's creation time and id (ties broken by id). */
export interface PagePosition {
  at: Date;
  id: string;
}

/** Opaque to clients: they pass back what they were given. */
export function encodePageCursor(last: { createdAt: Date; id: string }): string {
  return Buffer.from(`${last.createdAt.toISOString()}|${last.id}`).toString('base64url');
}

/** Null for no cursor, or one this service did not make (the first page is read then). */
export function decodePageCursor(cursor: string | undefined): PagePosition | null {
  if (!cursor) return null;
  const [at, id] = Buffer.from(cursor, 'base64url').toString().split('|');
  const date = new Date(at ?? '');
  if (!id || Number.isNaN(date.getTime()) || !/^[0-9a-f-]{36}$/.test(id)) return null;
  return { at: date, id };
}
