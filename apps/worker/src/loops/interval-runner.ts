import type { Logger } from '@nestjs/common';
import { boundedText } from '@app/common';

/**
 * Runs `round` every `intervalMs`, one round at a time (a round still running when the next is
 * due is not doubled); a failed round is logged and the next one runs as usual. `stop` waits for
 * the round in progress.
 */
export class IntervalRunner {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(
    private readonly round: () => Promise<unknown>,
    private readonly intervalMs: number,
    private readonly logger: Logger,
    private readonly failure: string,
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = this.round()
        .then(
          () => undefined,
          (error: unknown) => this.logger.warn(`${this.failure}: ${boundedText(error, 500)}`),
        )
        .finally(() => (this.running = undefined));
    }, this.intervalMs);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }
}
