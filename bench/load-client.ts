import { Agent, request } from 'node:http';

/**
 * The write benchmarks' load generator: JSON POSTs over keep-alive connections with Node's own
 * http module. The load shares this machine's cores with the service it measures, so its CPU is
 * taken from the service: with fetch (the tests' HttpClient) it cost 1.2 ms of CPU a mint in
 * bench:evm, about an eighth of the whole machine's.
 */
export class LoadClient {
  private readonly agent: Agent;

  constructor(
    private readonly baseUrl: string,
    private readonly headers: Record<string, string>,
    connections: number,
  ) {
    this.agent = new Agent({ keepAlive: true, maxSockets: connections });
  }

  async post<T = any>(
    path: string,
    body: unknown,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; body: T }> {
    const response = await this.send(path, JSON.stringify(body), headers);
    return { status: response.status, body: JSON.parse(response.body.toString()) as T };
  }

  close(): void {
    this.agent.destroy();
  }

  private send(
    path: string,
    payload: string,
    headers: Record<string, string>,
  ): Promise<{ status: number; body: Buffer }> {
    return new Promise((resolve, reject) => {
      const outgoing = request(
        this.baseUrl + path,
        {
          method: 'POST',
          agent: this.agent,
          headers: {
            ...this.headers,
            ...headers,
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(payload),
          },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('error', reject);
          response.on('end', () =>
            resolve({ status: response.statusCode!, body: Buffer.concat(chunks) }),
          );
        },
      );
      outgoing.on('error', reject);
      outgoing.end(payload);
    });
  }
}
