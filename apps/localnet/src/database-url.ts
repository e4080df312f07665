/** The URL of `database` on the Postgres server `serverUrl` reaches (its other parts kept). */
export function withDatabase(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}
