import { TimeSlices } from './time-slices';

describe('TimeSlices', () => {
  const clock = () => {
    let now = 0;
    return { now: () => now, advance: (ms: number) => (now += ms) };
  };

  /** Whether a callback queued on the event loop ran before `slice()` resolved. */
  const letsIoThrough = async (slices: TimeSlices) => {
    let ran = false;
    setImmediate(() => (ran = true));
    await slices.slice();
    return ran;
  };

  it('keeps the event loop while its slice lasts', async () => {
    const time = clock();
    const slices = new TimeSlices(5, time.now);
    time.advance(4);
    expect(slices.usedUp()).toBe(false);
    expect(await letsIoThrough(slices)).toBe(false);
  });

  it('lets pending callbacks run once its slice is used up, then starts a new slice', async () => {
    const time = clock();
    const slices = new TimeSlices(5, time.now);
    time.advance(5);
    expect(await letsIoThrough(slices)).toBe(true);
    expect(slices.usedUp()).toBe(false);
    time.advance(3);
    expect(await letsIoThrough(slices)).toBe(false);
    time.advance(2);
    expect(await letsIoThrough(slices)).toBe(true);
  });
});
