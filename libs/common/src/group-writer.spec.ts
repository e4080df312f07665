import { GroupWriter, KeyedGroupWriters } from './group-writer';

describe('GroupWriter', () => {
  it('writes at once when idle, and together what arrives while a write is under way', async () => {
    const writes: number[][] = [];
    let release!: () => void;
    const first = new Promise<void>((resolve) => (release = resolve));
    const writer = new GroupWriter<number>(async (items) => {
      writes.push(items);
      if (writes.length === 1) await first;
    }, 10);
    const done = [writer.submit(1), writer.submit(2), writer.submit(3)];
    await Promise.resolve();
    expect(writes).toEqual([[1]]);
    release();
    await Promise.all(done);
    expect(writes).toEqual([[1], [2, 3]]);
  });

  it('writes at most maxGroup items at a time', async () => {
    const writes: number[][] = [];
    const writer = new GroupWriter<number>(async (items) => {
      writes.push(items);
      await new Promise((resolve) => setImmediate(resolve));
    }, 2);
    await Promise.all([1, 2, 3, 4, 5, 6].map((n) => writer.submit(n)));
    expect(writes).toEqual([[1], [2, 3], [4, 5], [6]]);
  });

  it('fails only the caller whose item cannot be written: a failed group is written one by one', async () => {
    const written: number[] = [];
    let hold!: () => void;
    const held = new Promise<void>((resolve) => (hold = resolve));
    const writer = new GroupWriter<number>(async (items) => {
      if (items.includes(1)) await held;
      if (items.includes(3)) throw new Error('3 cannot be written');
      written.push(...items);
    }, 10);
    const results = [1, 2, 3, 4].map((n) =>
      writer.submit(n).then(
        () => 'ok',
        (error: Error) => error.message,
      ),
    );
    hold();
    expect(await Promise.all(results)).toEqual(['ok', 'ok', '3 cannot be written', 'ok']);
    expect(written).toEqual([1, 2, 4]);
  });

  it('gives every caller of a failed group its error when told the group must not be split', async () => {
    const writes: number[][] = [];
    let hold!: () => void;
    const held = new Promise<void>((resolve) => (hold = resolve));
    const writer = new GroupWriter<number>(
      async (items) => {
        writes.push(items);
        if (items.includes(1)) return held;
        throw new Error('answer lost');
      },
      10,
      { splits: (error) => (error as Error).message !== 'answer lost' },
    );
    const results = [1, 2, 3].map((n) =>
      writer.submit(n).then(
        () => 'ok',
        (error: Error) => error.message,
      ),
    );
    hold();
    expect(await Promise.all(results)).toEqual(['ok', 'answer lost', 'answer lost']);
    expect(writes).toEqual([[1], [2, 3]]);
  });

  it("gives each caller its item's result", async () => {
    const writer = new GroupWriter<number, string>(async (items) => {
      await new Promise((resolve) => setImmediate(resolve));
      return items.map((n) => `#${n}`);
    }, 10);
    expect(await Promise.all([1, 2, 3].map((n) => writer.submit(n)))).toEqual(['#1', '#2', '#3']);
  });

  it('says when it is idle', async () => {
    const idle = jest.fn();
    const writer = new GroupWriter<number>(async () => undefined, 10, { onIdle: idle });
    await writer.submit(1);
    expect(idle).toHaveBeenCalledTimes(1);
  });
});

describe('KeyedGroupWriters', () => {
  it('groups each key apart', async () => {
    const writes: string[] = [];
    const writers = new KeyedGroupWriters<number>(async (key, items) => {
      writes.push(`${key}:${items.join(',')}`);
      await new Promise((resolve) => setImmediate(resolve));
    }, 10);
    await Promise.all([
      writers.submit('a', 1),
      writers.submit('b', 2),
      writers.submit('a', 3),
      writers.submit('a', 4),
      writers.submit('b', 5),
    ]);
    expect(writes).toEqual(['a:1', 'b:2', 'a:3,4', 'b:5']);
  });
});
