import type { AppConfig } from '@app/config';
import { QueueConcurrency } from './queue-concurrency';

const worker = (adaptiveConcurrency: boolean) =>
  ({ concurrency: 256, minConcurrency: 4, adaptiveConcurrency }) as AppConfig['worker'];

describe('QueueConcurrency', () => {
  let clock = 0;
  const now = () => clock;

  /** `count` jobs at once, each taking `ms`, settled or not. */
  function run(queue: QueueConcurrency, count: number, ms: number, settled = true): void {
    const ends = Array.from({ length: count }, () => queue.started());
    clock += ms;
    for (const end of ends) end(settled);
  }

  it('runs WORKER_CONCURRENCY jobs at once when not adaptive', () => {
    const knob = { concurrency: 1 };
    const queue = new QueueConcurrency('q', knob, worker(false), now);
    run(queue, 100, 5_000);
    expect(knob.concurrency).toBe(256);
  });

  it('starts adaptive at 32 and grows while the latency of settled jobs holds', () => {
    const knob = { concurrency: 256 };
    const queue = new QueueConcurrency('q', knob, worker(true), now);
    expect(knob.concurrency).toBe(32);
    for (let i = 0; i < 10; i++) run(queue, knob.concurrency, 40);
    expect(knob.concurrency).toBeGreaterThan(100);
  });

  it('takes no sample from jobs that did not settle (parked or retried)', () => {
    const knob = { concurrency: 256 };
    const queue = new QueueConcurrency('q', knob, worker(true), now);
    for (let i = 0; i < 10; i++) run(queue, knob.concurrency, 40);
    const grown = knob.concurrency;
    for (let i = 0; i < 10; i++) run(queue, grown, 3_000, false);
    expect(knob.concurrency).toBe(grown);
    run(queue, grown, 3_000, true);
    expect(knob.concurrency).toBeLessThan(grown / 2);
  });
});
