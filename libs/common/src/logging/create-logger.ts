import pino, { type DestinationStream, type Logger } from 'pino';
import { LogContext } from './log-context';

export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal';

export interface LoggerOptions {
  /** `api` or `worker`: on every line, so that one stream can hold both. */
  service: string;
  level: LogLevel;
  /** Paths redacted on top of the built-in ones (LOG_REDACT_PATHS). */
  redactPaths: readonly string[];
}

/** Field names that hold secrets wherever they appear, at the top level or one level down. */
const SECRET_FIELDS = [
  'password',
  'secret',
  'secret_key',
  'secretKey',
  'private_key',
  'privateKey',
  'api_key',
  'apiKey',
  'mnemonic',
  'seed',
];

/** Redacted whatever the configuration adds: credentials in headers and secret-named fields. */
export const BUILT_IN_REDACT_PATHS: readonly string[] = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["api-key"]',
  'req.headers["x-api-key"]',
  'req.headers["proxy-authorization"]',
  'res.headers["set-cookie"]',
  ...SECRET_FIELDS.flatMap((field) => [field, `*.${field}`]),
];

export const REDACTED = '[Redacted]';

/**
 * The process's JSON logger: ISO time, level names, the service name, and the ids of the
 * current request or job (LogContext) on every line.
 */
export function createLogger(options: LoggerOptions, destination?: DestinationStream): Logger {
  const settings: pino.LoggerOptions = {
    level: options.level,
    base: { service: options.service, pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    mixin: () => ({ ...LogContext.current() }),
    redact: { paths: [...BUILT_IN_REDACT_PATHS, ...options.redactPaths], censor: REDACTED },
  };
  // Synchronous stdout (pino's default): a line logged just before a crash is not lost.
  return destination ? pino(settings, destination) : pino(settings);
}
