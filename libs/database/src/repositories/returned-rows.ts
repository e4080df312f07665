/** The rows of an UPDATE ... RETURNING run through `query`: it gives [rows, affected] on Postgres. */
export function returnedRows<T>(result: unknown[]): T[] {
  return (Array.isArray(result[0]) ? result[0] : result) as T[];
}
