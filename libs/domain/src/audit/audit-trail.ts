import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { LogContext } from '@app/common';
import { AuditEventRepository, UnitOfWork, type AuditEventInput } from '@app/database';

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

  /** Records an event; inside a transaction, pass its manager so both commit or neither. */
  async record(event: AuditEventInput, manager?: EntityManager): Promise<void> {
    const requestId = LogContext.current()?.requestId;
    const details = requestId ? { ...event.details, request_id: requestId } : event.details;
    await this.events.record({ ...event, details }, manager);
  }

  /**
   * Makes a change and records the event it calls for in one transaction: the change is kept
   * only if its event is recorded. `eventOf` answers null when the change called for none.
   */
  async recordWith<T>(
    change: (manager: EntityManager) => Promise<T>,
    eventOf: (result: T) => AuditEventInput | null,
  ): Promise<T> {
    return this.unitOfWork.run(async (manager) => {
      const result = await change(manager);
      const event = eventOf(result);
      if (event) await this.record(event, manager);
      return result;
    });
  }
}
