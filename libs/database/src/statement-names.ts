/** Statements a process names at most: past them, a new text runs unnamed, as before. */
export const NAMED_STATEMENTS_MAX = 500;
/** Texts remembered as seen once; forgotten all together when this many. */
const SEEN_ONCE_MAX = 5_000;

/**
 * The names under which a process's connections prepare the statements it runs again and again.
 * A text gets a name at its second run, so a one-off text (a query built with its values in
 * it, a migration) is never kept on the connections; and one name always stands for one text,
 * as node-postgres requires of every connection.
 */
export class StatementNames {
  private readonly names = new Map<string, string>();
  private seenOnce = new Set<string>();

  constructor(private readonly max = NAMED_STATEMENTS_MAX) {}

  /** The text's name, or undefined: run it unnamed (its first run, or the names are all taken). */
  nameFor(text: string): string | undefined {
    const name = this.names.get(text);
    if (name !== undefined || this.names.size >= this.max) return name;
    if (!this.seenOnce.has(text)) {
      if (this.seenOnce.size >= SEEN_ONCE_MAX) this.seenOnce = new Set();
      this.seenOnce.add(text);
      return undefined;
    }
    this.seenOnce.delete(text);
    const named = `ais_${this.names.size}`;
    this.names.set(text, named);
    return named;
  }
}
