import http from 'node:http';
import https from 'node:https';

/** An answer to a POST: its status and its whole body. */
export interface PostedAnswer {
  status: number;
  body: Buffer;
}

/**
 * Keep-alive connections to one origin, for `postJson`. The RPC clients of the send path use
 * node:http rather than fetch (whose web streams and abort signals cost about a millisecond of
 * CPU a call) or ethers' FetchRequest (103 µs of CPU a call against 42 here, measured against
 * anvil; its pure-JS UTF-8 decoding of the answers alone took 7% of the worker's CPU).
 */
export function keepAliveAgent(url: string, maxSockets = Infinity): http.Agent {
  const options = { keepAlive: true, maxSockets };
  return isHttps(url) ? new https.Agent(options) : new http.Agent(options);
}

/**
 * POSTs a JSON body and reads the whole answer, whatever its status. Rejects only when no answer
 * came: unreachable, reset, or the connection silent for `timeoutMs`.
 */
export function postJson(
  url: string,
  body: string,
  options: { agent: http.Agent; timeoutMs?: number; headers?: Record<string, string> },
): Promise<PostedAnswer> {
  const send = isHttps(url) ? https.request : http.request;
  return new Promise((resolve, reject) => {
    const request = send(
      url,
      {
        method: 'POST',
        agent: options.agent,
        headers: {
          ...options.headers,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
        timeout: options.timeoutMs,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks) }),
        );
        response.on('error', reject);
      },
    );
    request.on('timeout', () => request.destroy(new Error(`no answer in ${options.timeoutMs} ms`)));
    request.on('error', reject);
    request.end(body);
  });
}

function isHttps(url: string): boolean {
  return /^https:/i.test(url);
}
