import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { JsonRpcHttpEndpoint, RpcHttpError } from '@app/chains/evm/json-rpc-http-endpoint';
import { startAnvil, type AnvilHandle } from '@app/localnet/anvil';

jest.setTimeout(60_000);

describe('JsonRpcHttpEndpoint', () => {
  let anvil: AnvilHandle;
  const servers: Server[] = [];
  const endpoints: JsonRpcHttpEndpoint[] = [];

  const endpoint = (url: string, timeoutMs = 5_000): JsonRpcHttpEndpoint => {
    const made = new JsonRpcHttpEndpoint(url, timeoutMs);
    endpoints.push(made);
    return made;
  };

  /** A local HTTP server answering every request with `answer`. */
  const serving = async (answer: (response: ServerResponse) => void): Promise<string> => {
    const server = createServer((request, response) => {
      request.resume();
      request.on('end', () => answer(response));
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };

  beforeAll(async () => {
    anvil = await startAnvil({ port: 0 });
  });

  afterAll(async () => {
    for (const made of endpoints) made.destroy();
    for (const server of servers) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
    await anvil.stop();
  });

  it("returns a node's answers to a batch, error answers included, in the order sent", async () => {
    const answers = await endpoint(anvil.url).send([
      { jsonrpc: '2.0', id: 7, method: 'eth_chainId', params: [] },
      { jsonrpc: '2.0', id: 8, method: 'eth_sendRawTransaction', params: ['0x00'] },
    ]);
    expect(answers).toHaveLength(2);
    expect(answers[0]).toMatchObject({ id: 7, result: '0x7a69' });
    expect(answers[1]).toMatchObject({ id: 8, error: { message: expect.any(String) } });
  });

  it('returns a single call as a list of one, reusing its connection', async () => {
    let connections = 0;
    const url = await serving((response) =>
      response.end(JSON.stringify({ jsonrpc: '2.0', id: 1, result: '0x1' })),
    );
    servers.at(-1)!.on('connection', () => connections++);
    const node = endpoint(url);
    for (let i = 0; i < 3; i++) {
      const answers = await node.send({
        jsonrpc: '2.0',
        id: 1,
        method: 'eth_blockNumber',
        params: [],
      });
      expect(answers).toEqual([{ jsonrpc: '2.0', id: 1, result: '0x1' }]);
    }
    expect(connections).toBe(1);
  });

  it('decodes multi-byte UTF-8 split across chunks', async () => {
    const text = 'NFT «é» 🎨'.repeat(5_000);
    const url = await serving((response) => {
      const body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, result: text }));
      response.writeHead(200, { 'content-type': 'application/json' });
      // Cut inside a multi-byte character: the answer is decoded whole, not chunk by chunk.
      response.write(body.subarray(0, 13));
      setTimeout(() => response.end(body.subarray(13)), 20);
    });
    const [answer] = await endpoint(url).send({ jsonrpc: '2.0', id: 1, method: 'x', params: [] });
    expect(answer).toEqual({ jsonrpc: '2.0', id: 1, result: text });
  });

  it('throws on an HTTP error status (a transport failure, whatever the body)', async () => {
    const url = await serving((response) => {
      response.writeHead(503, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ jsonrpc: '2.0', id: 1, result: '0x1' }));
    });
    const failure = endpoint(url).send({
      jsonrpc: '2.0',
      id: 1,
      method: 'eth_chainId',
      params: [],
    });
    await expect(failure).rejects.toBeInstanceOf(RpcHttpError);
    await expect(failure).rejects.toMatchObject({ code: 'HTTP_503' });
  });

  it('throws on a body that is not JSON', async () => {
    const url = await serving((response) => response.end('<html>gateway</html>'));
    await expect(
      endpoint(url).send({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
    ).rejects.toMatchObject({ code: 'BAD_DATA' });
  });

  it('gives up on a node that does not answer within its time, and on one that is not there', async () => {
    const silent = await serving(() => undefined);
    const started = Date.now();
    await expect(
      endpoint(silent, 300).send({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
    ).rejects.toThrow('no answer in 300 ms');
    expect(Date.now() - started).toBeLessThan(3_000);

    const closed = await serving(() => undefined);
    await new Promise((resolve) => servers.pop()!.close(resolve));
    await expect(
      endpoint(closed).send({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
    ).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });
});
