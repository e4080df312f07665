import { connect } from 'node:net';
import type { FuzzCase } from './fuzz-cases';
import type { FuzzTargets } from './fuzz-routes';
import type { FuzzAnswer, FuzzTransport } from './fuzz-transport';

/** What a connection that is closed without an answer reports (acceptable for idle ones). */
export const CLOSED_WITHOUT_ANSWER = 'closed without an answer';

/**
 * Requests that never finish: a body shorter than its Content-Length, headers that never end,
 * a connection that sends nothing. The server must answer (408 in the envelope) or close within
 * `boundMs`; holding them open is how a few clients exhaust a server. They run beside the main
 * run, so they cost no extra time.
 */
export async function runSlowProbes(
  port: number,
  transport: FuzzTransport,
  targets: FuzzTargets,
  boundMs: number,
  record: (fuzz: FuzzCase, answer: FuzzAnswer) => void,
): Promise<void> {
  const unfinished = (index: number, path: string, headers: [string, string][]): FuzzCase => ({
    index,
    route: `POST ${path}`,
    category: 'slow.unfinished-body',
    bareSuccess: false,
    request: {
      method: 'POST',
      path,
      headers: [...headers, ['content-type', 'application/json'], ['content-length', '100']],
      body: Buffer.from('{"email":"a@b.'),
      truncateAt: 14,
    },
  });
  const raw = (index: number, category: string, bytes: string): FuzzCase => ({
    index,
    route: 'raw connection',
    category,
    bareSuccess: false,
    closeIsAnswer: true,
    request: { method: '-', path: JSON.stringify(bytes), headers: [] },
  });
  const probes: Promise<void>[] = [
    unfinished(-1, '/account/login', []),
    unfinished(-2, '/tokens', [['api-key', targets.apiKey]]),
  ].map(async (fuzz) => record(fuzz, await transport.send(fuzz.request, boundMs)));
  for (const [index, category, bytes] of [
    [-3, 'slow.idle-connection', ''],
    [-4, 'slow.unfinished-headers', 'GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nx-slow: 1\r\n'],
  ] as const) {
    const fuzz = raw(index, category, bytes);
    probes.push(rawExchange(port, bytes, boundMs).then((answer) => record(fuzz, answer)));
  }
  await Promise.all(probes);
}

/** Writes bytes on a fresh connection and reads until the server closes it or `boundMs` ends. */
function rawExchange(port: number, bytes: string, boundMs: number): Promise<FuzzAnswer> {
  const started = Date.now();
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let held = false;
    const timer = setTimeout(() => {
      held = true;
      socket.destroy();
    }, boundMs);
    socket.on('connect', () => {
      if (bytes) socket.write(bytes);
    });
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      const ms = Date.now() - started;
      const text = Buffer.concat(chunks).toString('latin1');
      if (held) {
        resolve({ headers: {}, body: Buffer.alloc(0), ms, failure: `held open for ${boundMs} ms` });
        return;
      }
      if (!text) {
        resolve({ headers: {}, body: Buffer.alloc(0), ms, failure: CLOSED_WITHOUT_ANSWER });
        return;
      }
      resolve({ ...parseRawAnswer(text), ms });
    });
  });
}

/** Status, headers and body of a raw HTTP/1.1 answer (enough to judge it, not a full parser). */
function parseRawAnswer(text: string): Omit<FuzzAnswer, 'ms'> {
  const [head, ...rest] = text.split('\r\n\r\n');
  const [statusLine, ...headerLines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    if (colon > 0)
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1]);
  return {
    status: Number.isFinite(status) ? status : undefined,
    headers,
    body: Buffer.from(rest.join('\r\n\r\n'), 'latin1'),
    failure: Number.isFinite(status)
      ? undefined
      : `unparseable answer ${JSON.stringify(text.slice(0, 100))}`,
  };
}
