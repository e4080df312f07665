import { shouldSweep } from './evm-pool-sweeper';

describe('shouldSweep', () => {
  it('mines what automine left pending through a whole interval', () => {
    expect(shouldSweep(true, true, true)).toBe(true);
  });

  it('waits while the pending transactions are new, or when none are', () => {
    expect(shouldSweep(false, true, true)).toBe(false);
    expect(shouldSweep(true, false, true)).toBe(false);
    expect(shouldSweep(false, false, true)).toBe(false);
  });

  it('never mines while automine is off: whoever turned it off holds those transactions', () => {
    expect(shouldSweep(true, true, false)).toBe(false);
  });
});
