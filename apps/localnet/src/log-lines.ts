import { prettyFactory } from 'pino-pretty';

/**
 * How `npm run local` shows the apps' JSON log lines: one readable line each, prefixed by the
 * app. LOCAL_LOG_FORMAT=json prints them as the apps wrote them.
 */
export function logLineFormatter(app: 'api' | 'worker'): (line: string) => string {
  const pretty = prettyFactory({
    colorize: Boolean(process.stdout.isTTY),
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,service,req.headers,res.headers,req.remoteAddress',
    singleLine: true,
  });
  const raw = process.env.LOCAL_LOG_FORMAT === 'json';
  return (line) => {
    if (raw || !line.startsWith('{')) return `[${app}] ${line}\n`;
    return `[${app}] ${pretty(line)}`;
  };
}
