import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@app/config';

export type FaultPoint = NonNullable<AppConfig['worker']['faultInjection']>;

/**
 * Crash tests (local profile only): kills this process with SIGKILL at a named point, so tests
 * can prove that recovery neither loses an operation nor sends it twice.
 */
@Injectable()
export class FaultInjection {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  at(point: FaultPoint): void {
    if (this.config.worker.faultInjection !== point) return;
    new Logger('FaultInjection').warn(`Killing the worker at ${point}`);
    process.kill(process.pid, 'SIGKILL');
  }
}
