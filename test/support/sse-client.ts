import { request, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';

/** One Server-Sent Event as EventSource would dispatch it. */
export interface SseEvent {
  id?: string;
  event?: string;
  data: string;
}

/**
 * A Server-Sent Events client over node:http, reading the stream as it comes (no library): the
 * events, comments and `retry` hints received, whether the server ended the stream, and a way to
 * wait for the next events. A non-200 answer is read whole into `body` (the error envelope).
 */
export class SseClient {
  readonly events: SseEvent[] = [];
  readonly comments: string[] = [];
  retry?: number;
  /** The server ended the response (not the client closing it). */
  ended = false;
  body: any;
  private buffer = '';
  private readonly waiters = new Set<() => void>();

  private constructor(
    private readonly response: IncomingMessage,
    readonly status: number,
    readonly headers: IncomingHttpHeaders,
  ) {}

  static open(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
    return new Promise((resolve, reject) => {
      const outgoing = request(url, { headers: { accept: 'text/event-stream', ...headers } });
      outgoing.on('error', reject);
      outgoing.on('response', (response) => {
        const client = new SseClient(response, response.statusCode ?? 0, response.headers);
        response.setEncoding('utf8');
        if (client.status !== 200) {
          let text = '';
          response.on('data', (chunk: string) => (text += chunk));
          response.on('end', () => {
            client.body = JSON.parse(text);
            resolve(client);
          });
          return;
        }
        response.on('data', (chunk: string) => client.receive(chunk));
        response.on('end', () => {
          client.ended = true;
          client.notify();
        });
        // A closed socket before the end is a cut stream, not an error of the test.
        response.on('error', () => client.notify());
        resolve(client);
      });
      outgoing.end();
    });
  }

  /** Waits until `count` events in all have come (throws after `timeoutMs`). */
  async waitForEvents(count: number, timeoutMs = 15_000): Promise<SseEvent[]> {
    await this.waitFor(() => this.events.length >= count, timeoutMs, `${count} events`);
    return this.events.slice(0, count);
  }

  /** Waits until the condition holds on what has come so far. */
  async waitFor(condition: () => boolean, timeoutMs = 15_000, what = 'the stream'): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!condition()) {
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new Error(
          `Timed out waiting for ${what}; got ${JSON.stringify(this.events.map((e) => [e.id, e.event]))}`,
        );
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, left);
        function done(): void {
          clearTimeout(timer);
          resolve();
        }
        this.waiters.add(done);
      });
    }
  }

  /** Hangs up, as a client that goes away. */
  close(): void {
    this.response.destroy();
  }

  private receive(chunk: string): void {
    this.buffer += chunk.replace(/\r\n?/g, '\n');
    let end: number;
    while ((end = this.buffer.indexOf('\n\n')) !== -1) {
      this.dispatch(this.buffer.slice(0, end));
      this.buffer = this.buffer.slice(end + 2);
    }
    this.notify();
  }

  private dispatch(block: string): void {
    const event: SseEvent = { data: '' };
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) {
        this.comments.push(line.slice(1).trim());
        continue;
      }
      const colon = line.indexOf(':');
      const name = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (name === 'data') data.push(value);
      else if (name === 'id') event.id = value;
      else if (name === 'event') event.event = value;
      else if (name === 'retry') this.retry = Number(value);
    }
    if (data.length === 0) return;
    event.data = data.join('\n');
    this.events.push(event);
  }

  private notify(): void {
    for (const waiter of [...this.waiters]) waiter();
    this.waiters.clear();
  }
}
