import { createLogger } from './create-logger';
import type { LogLevel } from './create-logger';
import { LIFECYCLE_CONTEXT, PinoNestLogger } from './pino-nest-logger';

function capture(level: LogLevel = 'info') {
  const lines: Record<string, any>[] = [];
  const pino = createLogger(
    { service: 'test', level, redactPaths: [] },
    { write: (line: string) => lines.push(JSON.parse(line)) },
  );
  return { logger: new PinoNestLogger(pino), lines };
}

describe('PinoNestLogger', () => {
  it('maps Nest levels to pino levels, with the context', () => {
    const { logger, lines } = capture('trace');
    logger.verbose('v', 'Ctx');
    logger.debug('d', 'Ctx');
    logger.log('l', 'Ctx');
    logger.warn('w', 'Ctx');
    logger.fatal('f', 'Ctx');
    expect(lines.map(({ level, msg, context }) => [level, msg, context])).toEqual([
      ['trace', 'v', 'Ctx'],
      ['debug', 'd', 'Ctx'],
      ['info', 'l', 'Ctx'],
      ['warn', 'w', 'Ctx'],
      ['fatal', 'f', 'Ctx'],
    ]);
  });

  it('tells a stack from a context in error(message, stack?, context?)', () => {
    const { logger, lines } = capture();
    const stack = new Error('boom').stack!;
    logger.error('failed', stack, 'HTTP');
    logger.error('failed', stack);
    logger.error('failed', 'HTTP');
    expect(lines[0]).toMatchObject({ msg: 'failed', stack, context: 'HTTP' });
    expect(lines[1]).toMatchObject({ stack });
    expect(lines[1].context).toBeUndefined();
    expect(lines[2]).toMatchObject({ context: 'HTTP' });
    expect(lines[2].stack).toBeUndefined();
  });

  it('puts the fields of an object message on the line, its msg as the text', () => {
    const { logger, lines } = capture();
    logger.log({ msg: 'Operation confirmed', operationId: 'op-1', txHash: '0x1' }, 'Settler');
    expect(lines[0]).toMatchObject({
      msg: 'Operation confirmed',
      operationId: 'op-1',
      txHash: '0x1',
      context: 'Settler',
    });
  });

  it('logs an Error with its message and serialized stack', () => {
    const { logger, lines } = capture();
    logger.error(new Error('broken'), 'Ctx');
    expect(lines[0].msg).toBe('broken');
    expect(lines[0].err).toMatchObject({ type: 'Error', message: 'broken' });
    expect(lines[0].err.stack).toContain('broken');
  });

  it('skips work for levels that are off', () => {
    const { logger, lines } = capture('info');
    logger.debug('hidden', 'Ctx');
    expect(lines).toHaveLength(0);
  });

  it('writes lifecycle lines (started, listening, ready) whatever the level', () => {
    const { logger, lines } = capture('error');
    logger.log('API listening on http://127.0.0.1:3000', LIFECYCLE_CONTEXT);
    logger.log('Mapped a route', 'RouterExplorer');
    logger.warn('a warning', LIFECYCLE_CONTEXT);
    expect(lines).toEqual([
      expect.objectContaining({
        level: 'info',
        context: LIFECYCLE_CONTEXT,
        msg: 'API listening on http://127.0.0.1:3000',
      }),
    ]);
  });
});
