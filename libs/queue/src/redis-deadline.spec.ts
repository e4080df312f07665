import { redisDeadline } from './redis-deadline';

describe('redisDeadline', () => {
  it('answers what Redis answered in time', async () => {
    await expect(redisDeadline(Promise.resolve('OK'), 50, 'answer')).resolves.toBe('OK');
    await expect(redisDeadline(Promise.reject(new Error('down')), 50, 'answer')).rejects.toThrow(
      'down',
    );
  });

  it('gives up on a Redis that does not answer, naming what it waited for', async () => {
    const never = new Promise<never>(() => undefined);
    const started = Date.now();
    await expect(redisDeadline(never, 30, 'take the job')).rejects.toThrow(
      'Redis did not take the job within 30 ms',
    );
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});
