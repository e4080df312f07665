import { request } from 'node:http';
import { connect } from 'node:net';

/** What came back on a raw connection: the first response (if any) and when the server hung up. */
export interface RawResponse {
  status?: number;
  headers: Record<string, string>;
  /** The body parsed as JSON when it is JSON, else its text. */
  body: any;
  /** From the first byte sent to the server closing the connection (or to the time limit). */
  elapsedMs: number;
  /** Whether the server closed the connection before `waitMs` ran out. */
  closedByServer: boolean;
}

/**
 * Sends bytes on a fresh TCP connection and collects what the server answers until it closes the
 * connection or `waitMs` passes: for requests no HTTP client will send (unknown methods, broken
 * escapes, oversized headers, bodies that never finish, connections that say nothing).
 */
export function rawRequest(baseUrl: string, data: string, waitMs = 10_000): Promise<RawResponse> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    const started = Date.now();
    let closedByServer = true;
    const timer = setTimeout(() => {
      closedByServer = false;
      socket.destroy();
    }, waitMs);
    socket.on('connect', () => {
      if (data) socket.write(data);
    });
    socket.on('data', (chunk) => chunks.push(chunk));
    // A server that answers and resets (it closes with unread bytes pending) is still an answer.
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      try {
        resolve({
          ...parseResponse(Buffer.concat(chunks).toString('utf8')),
          elapsedMs: Date.now() - started,
          closedByServer,
        });
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  });
}

function parseResponse(text: string): Pick<RawResponse, 'status' | 'headers' | 'body'> {
  if (!text) return { headers: {}, body: undefined };
  const headEnd = text.indexOf('\r\n\r\n');
  const [statusLine, ...headerLines] = text.slice(0, headEnd).split('\r\n');
  const headers = Object.fromEntries(
    headerLines.map((line) => {
      const colon = line.indexOf(':');
      return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()];
    }),
  );
  const raw = text.slice(headEnd + 4);
  let body: unknown = raw;
  try {
    body = JSON.parse(raw);
  } catch {
    // not JSON: kept as text, which the assertions will show
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body };
}

/** What came of a request sent whole: the answer, or the transport error that ended it. */
export interface WholeBodyAnswer {
  status?: number;
  body: string;
  error?: string;
}

/**
 * POSTs a body in full as Node's client does with no agent (it asks the server to close the
 * connection after the answer), whatever the server answers meanwhile.
 */
export function postWholeBody(
  baseUrl: string,
  path: string,
  body: Buffer,
  contentType = 'application/json',
): Promise<WholeBodyAnswer> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve) => {
    const outgoing = request({
      host: hostname,
      port,
      method: 'POST',
      path,
      headers: { 'content-type': contentType, 'content-length': body.length },
      agent: false,
    });
    outgoing.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode, body: Buffer.concat(chunks).toString() }),
      );
    });
    // An answer cut by the server's reset never comes: the error ends the request.
    outgoing.on('error', (error: NodeJS.ErrnoException) =>
      setTimeout(() => resolve({ body: '', error: error.code ?? error.message }), 200),
    );
    outgoing.end(body);
  });
}
