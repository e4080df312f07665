import {
  Injectable,
  type CallHandler,
  type ExecutionContext,
  type NestInterceptor,
} from '@nestjs/common';
import { finalize, type Observable } from 'rxjs';
import { QueryPriority } from '@app/database';

/**
 * An account's only request in flight in this process runs in the Postgres pool's first lane
 * (QueryPriority): a tenant sending one request at a time does not wait for a connection behind
 * another's dozens at once. The count is this process's, kept in memory; requests without an
 * account (sign-up, health) run in the fair lane.
 */
@Injectable()
export class AccountLaneInterceptor implements NestInterceptor {
  private readonly inFlight = new Map<string, number>();

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const { accountId } = context.switchToHttp().getRequest<{ accountId?: string }>();
    if (!accountId) return next.handle();
    const others = this.inFlight.get(accountId) ?? 0;
    this.inFlight.set(accountId, others + 1);
    // Nest binds the handler's async context when handle() is called: inside the lane here.
    const handled = others === 0 ? QueryPriority.first(() => next.handle()) : next.handle();
    return handled.pipe(finalize(() => this.ended(accountId)));
  }

  private ended(accountId: string): void {
    const left = (this.inFlight.get(accountId) ?? 1) - 1;
    if (left > 0) this.inFlight.set(accountId, left);
    else this.inFlight.delete(accountId);
  }
}
