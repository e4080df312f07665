import type { ClientConfig } from 'pg';
import { ConnectPhaseClient } from './connect-phase-client';
import { StatementNames } from './statement-names';

/** The process's statement names, shared by its connections. */
const PROCESS_NAMES = new StatementNames();

export interface PreparingClientConfig extends ClientConfig {
  /** false: every statement runs unnamed (DATABASE_PREPARED_STATEMENTS). */
  preparedStatements?: boolean;
}

/**
 * The pool's connection (see ConnectPhaseClient) that runs a parameterized statement the process
 * has run before as a named prepared statement: each connection has Postgres parse, analyze and
 * plan it once (after five runs Postgres keeps a generic plan where the custom ones cost no
 * less), not at every run. In a perf profile of Postgres under `bench:mint-cost`, parsing,
 * analysis and planning were about a fifth of its CPU; named statements took 0.2 ms off its CPU
 * a mint (2.0-2.1 -> 1.8-1.9 ms, two alternating pairs, 2026-11-29).
 *
 * Statements without parameters (BEGIN, COMMIT) run as simple queries, as before. A pooler that
 * hands one client's statements to several server connections (PgBouncer in transaction mode
 * before 1.21) cannot keep named statements: DATABASE_PREPARED_STATEMENTS=false there.
 */
export class PreparingClient extends ConnectPhaseClient {
  readonly statementNames?: StatementNames;

  constructor(config?: PreparingClientConfig, names: StatementNames = PROCESS_NAMES) {
    super(config);
    this.statementNames = config?.preparedStatements === false ? undefined : names;
  }
}

type Query = (this: PreparingClient, ...args: unknown[]) => unknown;

// node-postgres's `query` has a dozen overloads; this one changes only how a (text, values)
// call reaches it, so it is set on the prototype rather than declared as an override.
PreparingClient.prototype.query = function query(this: PreparingClient, ...args: unknown[]) {
  const [text, values, ...rest] = args;
  const name =
    typeof text === 'string' && Array.isArray(values) && values.length > 0
      ? this.statementNames?.nameFor(text)
      : undefined;
  // Looked up at each call, so that whoever wraps node-postgres's `query` (a test) still sees it.
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called with the client as `this`
  const unnamedQuery = ConnectPhaseClient.prototype.query as unknown as Query;
  return name === undefined
    ? unnamedQuery.apply(this, args)
    : unnamedQuery.call(this, { name, text, values }, ...rest);
} as typeof ConnectPhaseClient.prototype.query;
