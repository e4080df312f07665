import { Injectable } from '@nestjs/common';
import { AppError, type OperationStatus } from '@app/common';
import { BatchRepository, type BatchEntity, type OperationEntity } from '@app/database';
import { batchView, type BatchView } from './batch-view';

export interface BatchItemsQuery {
  status?: OperationStatus;
  limit: number;
  cursor?: string;
}

export interface BatchItemsPage {
  batch: BatchEntity;
  members: OperationEntity[];
  nextCursor: string | null;
}

/** The caller's batches and their entries (404 for another account's). */
@Injectable()
export class BatchReader {
  constructor(private readonly batches: BatchRepository) {}

  async get(accountId: string, id: string): Promise<BatchView> {
    const batch = await this.own(accountId, id);
    const counts = await this.batches.counts([batch.id]);
    return batchView(batch, counts.get(batch.id)!);
  }

  /** Newest first (the console's list). */
  async list(
    accountId: string,
    limit: number,
    cursor?: string,
  ): Promise<{ batches: BatchView[]; nextCursor: string | null }> {
    const page = await this.batches.listForAccount(accountId, limit, cursor);
    const counts = await this.batches.counts(page.batches.map((batch) => batch.id));
    return {
      batches: page.batches.map((batch) => batchView(batch, counts.get(batch.id)!)),
      nextCursor: page.nextCursor,
    };
  }

  /** Its entries by index; the cursor is opaque to clients (the next index). */
  async items(accountId: string, id: string, query: BatchItemsQuery): Promise<BatchItemsPage> {
    const batch = await this.own(accountId, id);
    const from = decodeIndexCursor(query.cursor);
    const rows = await this.batches.members(batch.id, from, query.limit + 1, query.status);
    const members = rows.slice(0, query.limit);
    const next = rows.length > query.limit ? rows[query.limit].batchIndex! : null;
    return { batch, members, nextCursor: next === null ? null : encodeIndexCursor(next) };
  }

  private async own(accountId: string, id: string): Promise<BatchEntity> {
    const batch = /^[0-9a-f-]{36}$/i.test(id)
      ? await this.batches.findForAccount(accountId, id.toLowerCase())
      : null;
    if (!batch) throw AppError.notFound(`No batch ${id} in this account.`);
    return batch;
  }
}

function encodeIndexCursor(index: number): string {
  return Buffer.from(`i${index}`).toString('base64url');
}

/** 0 for no cursor, or one this service did not make (the first page is read then). */
function decodeIndexCursor(cursor: string | undefined): number {
  if (!cursor) return 0;
  const match = /^i(\d{1,9})$/.exec(Buffer.from(cursor, 'base64url').toString());
  return match ? Number(match[1]) : 0;
}
