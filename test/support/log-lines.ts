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
