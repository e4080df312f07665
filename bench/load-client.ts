import type { Agent } from 'node:http';
import { keepAliveAgent, postJson } from '@app/chains/json-post';

/**
 * The write benchmarks' load generator: JSON POSTs to the API over keep-alive connections
 * (`postJson`). The load shares this machine's cores with the service it measures, so its CPU is
 * taken from the service: with fetch (the tests' HttpClient) it cost 1.2 ms of CPU a mint in
 * bench:evm, about an eighth of the whole machine's; 0.5 ms with this.
 */
export class LoadClient {
  private readonly agent: Agent;

  constructor(
    private readonly baseUrl: string,
    private readonly headers: Record<string, string>,
    connections: number,
  ) {
    this.agent = keepAliveAgent(baseUrl, connections);
  }

  async post<T = any>(
    path: string,
    body: unknown,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; body: T }> {
    const answer = await postJson(this.baseUrl + path, JSON.stringify(body), {
      agent: this.agent,
      headers: { ...this.headers, ...headers },
    });
    return { status: answer.status, body: JSON.parse(answer.body.toString('utf8')) as T };
  }

  close(): void {
    this.agent.destroy();
  }
}
