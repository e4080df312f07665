import { startServiceProcess, type ServiceProcess } from '@test/support/service-process';
import type { ServiceStack } from '@test/support/service-stack';
import { sleep } from './mint-client';

export interface ExitRecord {
  service: 'api' | 'worker';
  pid: number | undefined;
  code: number | null;
  signal: string | null;
  /** Seconds since the run started. */
  at_s: number;
}

/**
 * Watches the stack's API and workers the way a process supervisor would: a process that exits
 * without being told to is written down (the run reports it) and started again, so one crash does
 * not end the run. Kills the chaos run makes on purpose are not counted.
 */
export class Supervisor {
  readonly unexpectedExits: ExitRecord[] = [];
  /** Every process the run started, killed ones included, for their logs. */
  readonly started: { name: string; process: ServiceProcess }[] = [];
  private readonly intended = new Set<ServiceProcess>();
  private readonly restarts = new Set<Promise<void>>();
  private closed = false;
  private api: ServiceProcess;

  constructor(
    private readonly stack: ServiceStack,
    private readonly startedAt: number,
    private readonly log: (line: string) => void,
  ) {
    this.api = stack.api;
    this.watch('api', stack.api);
    for (const worker of stack.workers) this.watch('worker', worker);
  }

  /** SIGKILLs a running worker (no chance to clean up), then starts a new one. */
  async killWorker(pick: (count: number) => number): Promise<string> {
    const victim = this.stack.workers[pick(this.stack.workers.length)];
    if (!victim) return 'no worker running';
    this.intended.add(victim);
    await victim.stop('SIGKILL');
    this.stack.workers.splice(this.stack.workers.indexOf(victim), 1);
    const started = performance.now();
    const worker = await this.stack.startWorker();
    this.watch('worker', worker);
    return `killed pid ${victim.process.pid}; pid ${worker.process.pid} ready after ${Math.round(performance.now() - started)} ms`;
  }

  /** Stops restarting, waits for restarts under way, and stops what they started. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.allSettled([...this.restarts]);
    // The stack stops its own API and workers; an API started here is not one of them.
    if (this.api !== this.stack.api) await this.api.stop();
  }

  private watch(service: 'api' | 'worker', child: ServiceProcess): void {
    this.started.push({ name: `${service}-${this.started.length}`, process: child });
    child.process.once('exit', (code, signal) => {
      if (this.closed || this.intended.has(child)) return;
      const record = {
        service,
        pid: child.process.pid,
        code,
        signal,
        at_s: Math.round((performance.now() - this.startedAt) / 100) / 10,
      };
      this.unexpectedExits.push(record);
      this.log(`unexpected exit: ${JSON.stringify(record)}; starting it again`);
      const restart = this.restart(service, child).finally(() => this.restarts.delete(restart));
      this.restarts.add(restart);
    });
  }

  /** Starts the service again, retrying while its dependencies are still down. */
  private async restart(service: 'api' | 'worker', dead: ServiceProcess): Promise<void> {
    if (service === 'worker') this.stack.workers.splice(this.stack.workers.indexOf(dead), 1);
    while (!this.closed) {
      try {
        const next =
          service === 'worker'
            ? await this.stack.startWorker()
            : await startServiceProcess('api', this.stack.env, /API listening/);
        if (service === 'api') this.api = next;
        if (this.closed) {
          await next.stop();
          return;
        }
        this.watch(service, next);
        return;
      } catch (error) {
        this.log(`restart of ${service} failed, trying again: ${(error as Error).message}`);
        await sleep(2_000);
      }
    }
  }
}
