import type { AccountEventPage, AccountEventView } from '@app/domain';
import { EventStream } from './event-stream';

/** An account's events in memory, paged as AccountEventFeed pages them; counts the reads. */
class MemoryFeed {
  readonly events: AccountEventView[] = [];
  reads = 0;
  private gate?: Promise<void>;

  add(count: number): void {
    for (let i = 0; i < count; i++) {
      const sequence = this.events.length + 1;
      this.events.push({
        id: `event-${sequence}`,
        sequence,
        type: 'operation.queued',
        created_at: new Date(0).toISOString(),
        data: { n: sequence },
      });
    }
  }

  /** Holds every read until the returned function is called. */
  hold(): () => void {
    let release!: () => void;
    this.gate = new Promise((resolve) => (release = resolve));
    return () => {
      this.gate = undefined;
      release();
    };
  }

  async page(_accountId: string, after: number, limit: number): Promise<AccountEventPage> {
    this.reads++;
    await this.gate;
    const rest = this.events.filter((event) => event.sequence > after);
    const events = rest.slice(0, limit);
    return { events, next_after: events.at(-1)?.sequence ?? after, has_more: rest.length > limit };
  }
}

const TIMING = { heartbeatMs: 60_000, pollMs: 60_000, retryMs: 2_000 };

/** The ids of the events the client has read so far. */
function readIds(stream: EventStream): () => number[] {
  const ids: number[] = [];
  stream.body.setEncoding('utf8');
  stream.body.on('data', (chunk: string) => {
    for (const match of chunk.matchAll(/^id: (\d+)$/gm)) ids.push(Number(match[1]));
  });
  return () => ids;
}

const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !condition(); i++) await settle();
  expect(condition()).toBe(true);
}

describe('EventStream', () => {
  const streams: EventStream[] = [];
  const newStream = (feed: MemoryFeed): EventStream => {
    const stream = new EventStream('account', feed, TIMING);
    streams.push(stream);
    return stream;
  };
  afterEach(() => streams.splice(0).forEach((stream) => stream.close()));

  it('sends the retry hint, the events after the start, then new ones, each once', async () => {
    const feed = new MemoryFeed();
    feed.add(5);
    const stream = newStream(feed);
    let text = '';
    stream.body.on('data', (chunk: Buffer) => (text += chunk.toString()));
    const ids = readIds(stream);
    stream.start(2);
    await until(() => ids().length === 3);
    expect(text.startsWith('retry: 2000\n\n')).toBe(true);
    feed.add(2);
    stream.wake();
    stream.wake();
    await until(() => ids().length === 5);
    await settle();
    expect(ids()).toEqual([3, 4, 5, 6, 7]);
    stream.close();
  });

  it('reads once more, not once per wakeup, when woken during a read', async () => {
    const feed = new MemoryFeed();
    const stream = newStream(feed);
    const ids = readIds(stream);
    const release = feed.hold();
    stream.start(0);
    await settle();
    feed.add(3);
    for (let i = 0; i < 10; i++) stream.wake();
    release();
    await until(() => ids().length === 3);
    await settle();
    expect(feed.reads).toBe(2);
    expect(ids()).toEqual([1, 2, 3]);
    stream.close();
  });

  it('catches up page by page as the client reads, holding little for a client that does not', async () => {
    const feed = new MemoryFeed();
    feed.add(1_000);
    const stream = newStream(feed);
    stream.start(0);
    for (let i = 0; i < 50; i++) await settle();
    // Nobody reads: it stopped once the stream's buffers (16 KB each way) were full, a couple
    // of pages in, not after all ten.
    expect(feed.reads).toBeLessThanOrEqual(4);
    const ids = readIds(stream);
    await until(() => ids().length === 1_000);
    expect(ids()).toEqual(feed.events.map((event) => event.sequence));
    stream.close();
  });

  it('stops reading and tells whoever waits once closed, by either side', async () => {
    const feed = new MemoryFeed();
    const stream = newStream(feed);
    let closed = 0;
    stream.onClose(() => closed++);
    stream.start(0);
    stream.body.destroy();
    await until(() => stream.isClosed);
    const reads = feed.reads;
    stream.wake();
    stream.close();
    expect(feed.reads).toBe(reads);
    expect(closed).toBe(1);
  });
});
