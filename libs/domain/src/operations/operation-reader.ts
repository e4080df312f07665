import { Injectable } from '@nestjs/common';
import { AppError, BoundedCache } from '@app/common';
import { OperationRepository, type OperationFilter } from '@app/database';
import { operationView, type OperationView } from './operation-view';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Settled views kept per process (a view is well under 1 KB). */
const SETTLED_VIEWS = 10_000;

/**
 * Reads an account's operations. A settled operation (confirmed or failed) never changes again
 * (every later write is guarded by an unsettled status), so its view is kept in memory once
 * read: polling a settled operation costs no query.
 */
@Injectable()
export class OperationReader {
  private readonly settledViews = new BoundedCache<OperationView>(SETTLED_VIEWS);

  constructor(private readonly operations: OperationRepository) {}

  async get(accountId: string, id: string): Promise<OperationView> {
    const view = UUID.test(id)
      ? await this.settledViews.getOrLoad(
          `${accountId}|${id}`,
          () => this.load(accountId, id),
          isSettled,
        )
      : null;
    if (!view) throw AppError.notFound('No operation with this id in this account.');
    return view;
  }

  private async load(accountId: string, id: string): Promise<OperationView | null> {
    const operation = await this.operations.findViewForAccount(accountId, id);
    if (!operation) return null;
    return operationView(operation);
  }

  async list(
    accountId: string,
    limit: number,
    cursor?: string,
    filter?: OperationFilter,
  ): Promise<{ operations: OperationView[]; next_cursor: string | null }> {
    const page = await this.operations.listForAccount(accountId, limit, cursor, filter);
    return { operations: page.operations.map(operationView), next_cursor: page.nextCursor };
  }
}

function isSettled(view: OperationView): boolean {
  return view.status === 'confirmed' || view.status === 'failed';
}
