import { Client } from 'pg';

type Query = (this: Client, ...args: unknown[]) => unknown;

/**
 * Runs `run`, counting the most statements any one node-postgres client was given at once (one
 * given while another runs: deprecated by node-postgres 8, refused by pg@9): its result and that
 * count. Wraps `Client.prototype.query`, callback and promise forms alike.
 */
export async function mostQueriesAtOnceOnAClient<T>(
  run: () => Promise<T>,
): Promise<{ result: T; most: number }> {
  const prototype = Client.prototype as unknown as { query: Query };
  const original = prototype.query;
  const running = new Map<Client, number>();
  let most = 0;
  prototype.query = function (this: Client, ...args: unknown[]): unknown {
    const now = (running.get(this) ?? 0) + 1;
    running.set(this, now);
    most = Math.max(most, now);
    const done = () => void running.set(this, (running.get(this) ?? 1) - 1);
    const last = args[args.length - 1];
    if (typeof last === 'function') {
      args[args.length - 1] = (...results: unknown[]) => {
        done();
        return (last as (...results: unknown[]) => unknown)(...results);
      };
      return original.apply(this, args);
    }
    const result = original.apply(this, args);
    if (result instanceof Promise) result.then(done, done);
    else done();
    return result;
  };
  try {
    return { result: await run(), most };
  } finally {
    prototype.query = original;
  }
}
