import { createLogger, REDACTED, type LoggerOptions } from './create-logger';
import { LogContext } from './log-context';

function capture(options: Partial<LoggerOptions> = {}) {
  const lines: Record<string, any>[] = [];
  const logger = createLogger(
    { service: 'test', level: 'info', redactPaths: [], ...options },
    { write: (line: string) => lines.push(JSON.parse(line)) },
  );
  return { logger, lines };
}

describe('createLogger', () => {
  it('writes JSON lines with an ISO time, the level name and the service', () => {
    const { logger, lines } = capture();
    logger.info('hello');
    expect(lines[0]).toMatchObject({ level: 'info', service: 'test', msg: 'hello' });
    expect(new Date(lines[0].time).toISOString()).toBe(lines[0].time);
  });

  it('redacts credentials in request and response headers and secret-named fields', () => {
    const { logger, lines } = capture();
    logger.info({
      req: {
        headers: {
          authorization: 'Bearer t0k3n',
          cookie: 'ais_session=abc',
          'api-key': 'ais_live_key',
          'x-request-id': 'r-1',
        },
      },
      res: { headers: { 'set-cookie': 'ais_session=abc' } },
      password: 'hunter22',
      wallet: { secret_key: 'sk', public_key: 'pk' },
      account: { privateKey: '0xabc' },
    });
    const [line] = lines;
    expect(line.req.headers).toEqual({
      authorization: REDACTED,
      cookie: REDACTED,
      'api-key': REDACTED,
      'x-request-id': 'r-1',
    });
    expect(line.res.headers['set-cookie']).toBe(REDACTED);
    expect(line.password).toBe(REDACTED);
    expect(line.wallet).toEqual({ secret_key: REDACTED, public_key: 'pk' });
    expect(line.account.privateKey).toBe(REDACTED);
  });

  it('redacts the configured paths as well as the built-in ones', () => {
    const plain = capture();
    const configured = capture({ redactPaths: ['req.headers["x-partner-token"]', 'card.number'] });
    const entry = {
      req: { headers: { 'x-partner-token': 'pt-1', authorization: 'Basic x' } },
      card: { number: '4242', brand: 'visa' },
    };
    plain.logger.info(entry);
    configured.logger.info(entry);
    expect(plain.lines[0].req.headers['x-partner-token']).toBe('pt-1');
    expect(configured.lines[0].req.headers).toEqual({
      'x-partner-token': REDACTED,
      authorization: REDACTED,
    });
    expect(configured.lines[0].card).toEqual({ number: REDACTED, brand: 'visa' });
  });

  it('puts the ids of the current context on every line, nested contexts adding to them', async () => {
    const { logger, lines } = capture();
    await LogContext.run({ requestId: 'req-1' }, async () => {
      logger.info('in request');
      await LogContext.run({ operationId: 'op-1', jobId: 'job-1' }, async () => {
        await new Promise((resolve) => setImmediate(resolve));
        logger.info({ operationId: 'op-explicit' }, 'in job');
      });
    });
    logger.info('outside');
    expect(lines[0]).toMatchObject({ requestId: 'req-1', msg: 'in request' });
    expect(lines[1]).toMatchObject({
      requestId: 'req-1',
      operationId: 'op-explicit',
      jobId: 'job-1',
    });
    expect(lines[2].requestId).toBeUndefined();
  });

  it('leaves no ids on what runs outside the context, even when started inside it', async () => {
    const { logger, lines } = capture();
    const detached = LogContext.run({ requestId: 'req-1' }, () =>
      LogContext.outside(() => new Promise<void>((resolve) => setImmediate(resolve))).then(() =>
        logger.info('back in the request'),
      ),
    );
    const later = LogContext.run({ requestId: 'req-2' }, () =>
      LogContext.outside(
        () =>
          new Promise<void>((resolve) =>
            setTimeout(() => {
              logger.info('a connection event');
              resolve();
            }, 1),
          ),
      ),
    );
    await Promise.all([detached, later]);
    expect(lines.find((line) => line.msg === 'back in the request')?.requestId).toBe('req-1');
    expect(lines.find((line) => line.msg === 'a connection event')?.requestId).toBeUndefined();
  });

  it('drops lines below the configured level', () => {
    const { logger, lines } = capture({ level: 'warn' });
    logger.info('quiet');
    logger.warn('loud');
    expect(lines.map((line) => line.msg)).toEqual(['loud']);
  });
});
