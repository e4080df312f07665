import { RoundMemory } from './round-memory';

describe('RoundMemory', () => {
  it('gives the same entry to every round of an operation until it is forgotten', () => {
    const memory = new RoundMemory<{ sentAt: number }>();
    const first = memory.of('op-1', () => ({ sentAt: 1 }));
    first.sentAt = 5;
    expect(memory.of('op-1', () => ({ sentAt: 0 })).sentAt).toBe(5);
    memory.forget('op-1');
    expect(memory.has('op-1')).toBe(false);
    expect(memory.of('op-1', () => ({ sentAt: 0 })).sentAt).toBe(0);
  });

  it('drops entries unused for ten minutes, and keeps those used since', () => {
    let now = 0;
    const memory = new RoundMemory<{ n: number }>(() => now);
    memory.of('stale', () => ({ n: 1 }));
    memory.of('busy', () => ({ n: 2 }));
    now = 9 * 60_000;
    memory.of('busy', () => ({ n: 0 }));
    now = 11 * 60_000;
    // A sweep runs every thousand lookups.
    for (let i = 0; i < 1_000; i++) memory.of('busy', () => ({ n: 0 }));
    expect(memory.has('stale')).toBe(false);
    expect(memory.has('busy')).toBe(true);
    expect(memory.size).toBe(1);
  });
});
