import { pastDeadline, retriesExhausted } from './operation-deadline';

describe('operation deadline', () => {
  const since = new Date('2025-01-01T00:00:00Z');

  it('runs from the first failed attempt; an operation that never failed has none', () => {
    expect(pastDeadline(null, 1_000, since.getTime() + 10_000_000)).toBe(false);
    expect(pastDeadline(since, 1_000, since.getTime() + 999)).toBe(false);
    expect(pastDeadline(since, 1_000, since.getTime() + 1_000)).toBe(true);
  });

  it('fails with RETRIES_EXHAUSTED (a 502) and the last error', () => {
    const error = retriesExhausted('The base RPC did not answer; try again.');
    expect(error.code).toBe('RETRIES_EXHAUSTED');
    expect(error.status).toBe(502);
    expect(error.message).toBe('retries exhausted: The base RPC did not answer; try again.');
    expect(retriesExhausted(null).message).toMatch(/^retries exhausted: /);
  });
});
