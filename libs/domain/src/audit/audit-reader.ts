import { Injectable } from '@nestjs/common';
import { AuditEventRepository, type AuditEntry } from '@app/database';

export interface AuditPage {
  /** Newest first. */
  entries: AuditEntry[];
  /** The cursor of the next (older) page: the seq of this page's last entry; null on the last. */
  nextCursor: string | null;
}

/** Reads an account's own audit trail, newest first. */
@Injectable()
export class AuditReader {
  constructor(private readonly events: AuditEventRepository) {}

  /** `cursor` is a previous page's `nextCursor` (the seq its last entry had). */
  async page(accountId: string, limit: number, cursor?: string): Promise<AuditPage> {
    const page = await this.events.listForAccount(accountId, limit, cursor);
    return { entries: page.entries, nextCursor: page.nextBeforeSeq };
  }
}
