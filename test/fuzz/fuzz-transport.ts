import { request, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

/** One request exactly as the fuzzer means to send it: raw path, repeated headers, raw bytes. */
export interface FuzzRequest {
  method: string;
  /** The request target as written on the request line (not normalised: `..`, `%zz` stay). */
  path: string;
  /** Name/value pairs in order; a name may repeat (sent as separate header lines). */
  headers: [string, string][];
  body?: Buffer;
  /** Send only this many bytes of `body` while declaring its full length, then wait. */
  truncateAt?: number;
}

export interface FuzzAnswer {
  status?: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  /** Set when no complete answer came: a transport error or the time limit. */
  failure?: string;
  ms: number;
}

/**
 * Sends over node:http (not fetch, which normalises paths and merges repeated headers), to
 * 127.0.0.1 only. An answer that does not come within `timeoutMs`
 * is reported as such, never awaited for longer.
 */
export class FuzzTransport {
  constructor(
    private readonly port: number,
    private readonly timeoutMs: number,
  ) {}

  send(fuzz: FuzzRequest, timeoutMs = this.timeoutMs): Promise<FuzzAnswer> {
    const started = Date.now();
    return new Promise((resolve) => {
      let settled = false;
      const finish = (answer: Omit<FuzzAnswer, 'ms'>): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({ ...answer, ms: Date.now() - started });
      };
      const raw: string[] = [];
      // Node does not add Host to headers given as a list: the fuzz writes it unless a case does.
      if (!fuzz.headers.some(([name]) => name.toLowerCase() === 'host')) {
        raw.push('host', `127.0.0.1:${this.port}`);
      }
      for (const [name, value] of fuzz.headers) raw.push(name, value);
      const framed = fuzz.headers.some(([name]) =>
        /^(content-length|transfer-encoding)$/i.test(name),
      );
      if (fuzz.body && !framed) raw.push('content-length', String(fuzz.body.length));
      const outgoing = request({
        host: '127.0.0.1',
        port: this.port,
        method: fuzz.method,
        path: fuzz.path,
        headers: raw as unknown as Record<string, string>,
        // A connection of its own per request: a hostile request can leave its connection in any
        // state (half a body, a framing error), which must not fall on the next case.
        agent: false,
      });
      const timer = setTimeout(() => {
        outgoing.destroy();
        finish({ headers: {}, body: Buffer.alloc(0), failure: `no answer within ${timeoutMs} ms` });
      }, timeoutMs);
      outgoing.on('response', (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          finish({
            status: response.statusCode,
            headers: response.headers,
            body: Buffer.concat(chunks),
          }),
        );
        response.on('error', (error) =>
          finish({
            status: response.statusCode,
            headers: response.headers,
            body: Buffer.concat(chunks),
            failure: `answer cut: ${error.message}`,
          }),
        );
      });
      // Node's client hands the answer to a CONNECT, whatever its status, to 'connect' with
      // the connection: its body is read off the socket until the server closes it.
      outgoing.on('connect', (response: IncomingMessage, socket: Socket, head: Buffer) => {
        const chunks: Buffer[] = [head];
        socket.on('data', (chunk: Buffer) => chunks.push(chunk));
        socket.on('error', () => undefined);
        socket.on('close', () =>
          finish({
            status: response.statusCode,
            headers: response.headers,
            body: Buffer.concat(chunks),
          }),
        );
      });
      outgoing.on('error', (error: NodeJS.ErrnoException) => {
        // A server may answer (e.g. 413) and close while a large body is still being written:
        // the answer, if one came, is what counts.
        setTimeout(
          () =>
            finish({
              headers: {},
              body: Buffer.alloc(0),
              failure: `no answer: ${error.code ?? error.message}`,
            }),
          50,
        );
      });
      if (fuzz.truncateAt !== undefined && fuzz.body) {
        outgoing.write(fuzz.body.subarray(0, fuzz.truncateAt));
        outgoing.flushHeaders();
      } else {
        outgoing.end(fuzz.body);
      }
    });
  }
}
