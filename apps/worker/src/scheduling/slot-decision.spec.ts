import { LINED_DELAY_FACTOR, MAX_LINED_DELAY_MS } from '@app/queue';
import { decideSlot, slotOf } from './slot-decision';

const scheduling = { maxInFlight: 4, overCapDelayMs: 500 };
const middle = () => 0.5;

describe('slotOf', () => {
  it("is the job's account, network and operation", () => {
    expect(slotOf({ operationId: 'op-1', accountId: 'acc-1', network: 'sepolia' })).toEqual({
      operationId: 'op-1',
      accountId: 'acc-1',
      network: 'sepolia',
    });
  });

  it('is null for a job of an older release, without its account or network', () => {
    expect(slotOf({ operationId: 'op-1' })).toBeNull();
    expect(slotOf({ operationId: 'op-1', accountId: 'acc-1' })).toBeNull();
    expect(slotOf({ operationId: 'op-1', network: 'sepolia' })).toBeNull();
  });

  it('leaves the request id out', () => {
    const slot = slotOf({
      operationId: 'op-1',
      accountId: 'acc-1',
      network: 'sepolia',
      requestId: 'req-1',
    });
    expect(slot).not.toHaveProperty('requestId');
  });
});

describe('decideSlot', () => {
  it('runs now when the slot was taken, whatever the backlog', () => {
    expect(decideSlot({ taken: true, pending: 10_000 }, scheduling, middle)).toEqual({ run: true });
  });

  it("waits in the line for a freed slot, its fallback delay a few rounds of the account's backlog", () => {
    expect(decideSlot({ taken: false, pending: 3 }, scheduling, middle)).toEqual({
      run: false,
      delayMs: 500 * LINED_DELAY_FACTOR,
    });
    expect(decideSlot({ taken: false, pending: 8 }, scheduling, middle)).toEqual({
      run: false,
      delayMs: 2 * 500 * LINED_DELAY_FACTOR,
    });
  });

  it('comes back within the longest delay, however long the backlog', () => {
    expect(decideSlot({ taken: false, pending: 10 ** 6 }, scheduling, middle)).toEqual({
      run: false,
      delayMs: MAX_LINED_DELAY_MS,
    });
  });

  it('jitters the delay by a quarter either way', () => {
    expect(decideSlot({ taken: false, pending: 3 }, scheduling, () => 0)).toEqual({
      run: false,
      delayMs: 0.75 * 500 * LINED_DELAY_FACTOR,
    });
  });
});
