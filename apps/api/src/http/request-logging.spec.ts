import Fastify from 'fastify';
import { Writable } from 'node:stream';
import { createLogger } from '@app/common';
import { logRequests, type RequestLogOptions } from './request-logging';

/** The request line logged for one GET, through the API's own logger. */
async function requestLine(options: RequestLogOptions): Promise<Record<string, any>> {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  const logger = createLogger(
    { service: 'api', level: 'info', redactPaths: options.redactPaths },
    destination,
  );
  const fastify = Fastify();
  logRequests(fastify, logger, options);
  fastify.get('/things/:id', async () => ({ ok: true }));
  const response = await fastify.inject({
    method: 'GET',
    url: '/things/7',
    headers: {
      'api-key': 'secret-key-value',
      referer: 'https://app.example/page?token=referred-secret&tab=2',
    },
  });
  expect(response.statusCode).toBe(200);
  await fastify.close();
  const line = lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'request completed');
  expect(line).toBeDefined();
  return line;
}

describe('the request line', () => {
  it('names the method, URL, route, address and status, without headers by default', async () => {
    const line = await requestLine({ headers: false, redactPaths: [] });
    expect(line.req).toEqual({
      method: 'GET',
      url: '/things/7',
      route: '/things/:id',
      remoteAddress: '127.0.0.1',
    });
    expect(line.res).toEqual({ statusCode: 200 });
  });

  it("redacts what the operator's paths name on the line itself", async () => {
    const line = await requestLine({ headers: false, redactPaths: ['req.remoteAddress'] });
    expect(line.req.remoteAddress).toBe('[Redacted]');
    expect(line.req.url).toBe('/things/7');
  });

  it('redacts credentials when it carries the headers', async () => {
    const line = await requestLine({ headers: true, redactPaths: [] });
    expect(line.req.headers['api-key']).toBe('[Redacted]');
    // The page a request came from is a URL like any other: its credentials are redacted too.
    expect(line.req.headers.referer).toBe('https://app.example/page?token=[Redacted]&tab=2');
  });
});
