import type { ServiceProcess } from './service-process';

export type LogLine = Record<string, any>;

/** Every line the process printed, each of which must be a JSON object. */
export function logLines(process: ServiceProcess): LogLine[] {
  return process
    .output()
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      try {
        return JSON.parse(line) as LogLine;
      } catch {
        throw new Error(`Not a JSON log line: ${line}`);
      }
    });
}

/**
 * The first line `matches`, once the process has printed it: a line comes through a pipe, and
 * often after what it tells of is in Postgres already (a settlement is logged once written).
 */
export async function waitForLogLine(
  process: ServiceProcess,
  matches: (line: LogLine) => boolean,
  timeoutMs = 10_000,
): Promise<LogLine> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const line = logLines(process).find(matches);
    if (line) return line;
    if (Date.now() > deadline) throw new Error(`No such log line in ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
