import { Injectable } from '@nestjs/common';
import { LogContext } from '@app/common';
import {
  AuditEventRepository,
  UnitOfWork,
  type AuditEventInput,
  type WorkScope,
} from '@app/database';

/**
 * Records security-relevant events in the account's audit log (an append-only hash chain, see
 * migration 1765200000000). Each event carries the id of the request that caused it, which ties
 * it to that request's log line. Signings with managed keys are recorded by the database itself.
 */
@Injectable()
export class AuditTrail {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly events: AuditEventRepository,
  ) {}

  /** Records an event; inside a transaction, pass its scope so both commit or neither. */
  async record(event: AuditEventInput, scope?: WorkScope): Promise<void> {
    const requestId = LogContext.current()?.requestId;
    const details = requestId ? { ...event.details, request_id: requestId } : event.details;
    await this.events.record({ ...event, details }, scope);
  }

  /**
   * Makes a change and records the event it calls for in one transaction: the change is kept
   * only if its event is recorded. `eventOf` answers null when the change called for none.
   */
  async recordWith<T>(
    change: (scope: WorkScope) => Promise<T>,
    eventOf: (result: T) => AuditEventInput | null,
  ): Promise<T> {
    return this.unitOfWork.run(async (scope) => {
      const result = await change(scope);
      const event = eventOf(result);
      if (event) await this.record(event, scope);
      return result;
    });
  }
}
