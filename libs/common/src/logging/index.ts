export * from './create-logger';
export * from './log-context';
export * from './pino-nest-logger';
export * from './url-redaction';
