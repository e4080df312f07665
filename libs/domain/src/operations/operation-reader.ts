import { Injectable } from '@nestjs/common';
import { AppError } from '@app/common';
import { OperationRepository, type OperationFilter } from '@app/database';
import { operationView, viewReadsSignedTx, type OperationView } from './operation-view';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Reads an account's operations. */
@Injectable()
export class OperationReader {
  constructor(private readonly operations: OperationRepository) {}

  async get(accountId: string, id: string): Promise<OperationView> {
    const operation = UUID.test(id)
      ? await this.operations.findViewForAccount(accountId, id)
      : null;
    if (!operation) throw AppError.notFound('No operation with this id in this account.');
    if (viewReadsSignedTx(operation)) operation.signedTx = await this.operations.signedTxOf(id);
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
