import type { LoggerService } from '@nestjs/common';
import type { Logger } from 'pino';

type PinoMethod = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal';

const STACK = /\n\s+at /;

/**
 * The context of the lines saying a process started, is ready or listens: written whatever
 * LOG_LEVEL says, since supervisors (and `npm run local`) wait for them.
 */
export const LIFECYCLE_CONTEXT = 'Lifecycle';

/**
 * Nest's LoggerService on pino: `new Logger('Ctx').log(...)` anywhere in the apps becomes a JSON
 * line with `context`. A message may be an object, whose fields go on the line (`msg` is its text).
 */
export class PinoNestLogger implements LoggerService {
  private readonly lifecycle: Logger;

  constructor(private readonly pino: Logger) {
    this.lifecycle = pino.child({}, { level: 'info' });
  }

  verbose(message: unknown, ...params: unknown[]): void {
    this.write('trace', message, params);
  }

  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }

  log(message: unknown, ...params: unknown[]): void {
    if (params[params.length - 1] === LIFECYCLE_CONTEXT) {
      this.lifecycle.info({ context: LIFECYCLE_CONTEXT }, String(message));
      return;
    }
    this.write('info', message, params);
  }

  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }

  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params);
  }

  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params);
  }

  private write(level: PinoMethod, message: unknown, params: unknown[]): void {
    if (!this.pino.isLevelEnabled(level)) return;
    const { context, stack } = contextAndStack(params);
    const fields: Record<string, unknown> = { context };
    if (stack) fields.stack = stack;
    if (message instanceof Error) {
      this.pino[level]({ ...fields, err: message }, message.message);
    } else if (message !== null && typeof message === 'object') {
      const { msg, ...rest } = message as Record<string, unknown>;
      this.pino[level]({ ...fields, ...rest }, typeof msg === 'string' ? msg : undefined);
    } else {
      this.pino[level](fields, String(message));
    }
  }
}

/** Nest passes the logger's context last, and `error(message, stack, context)` a stack before it. */
function contextAndStack(params: unknown[]): { context?: string; stack?: string } {
  const strings = params.filter((param): param is string => typeof param === 'string');
  if (strings.length >= 2) return { stack: strings[0], context: strings[strings.length - 1] };
  const [only] = strings;
  if (only === undefined) return {};
  return STACK.test(only) ? { stack: only } : { context: only };
}
