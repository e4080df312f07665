import type { components, paths } from './generated/schema';

export type Method = 'get' | 'post' | 'patch' | 'delete';

/** The paths that answer `M`. */
export type PathsFor<M extends Method> = {
  [P in keyof paths]: paths[P][M] extends { responses: unknown } ? P : never;
}[keyof paths];

type Operation<P extends keyof paths, M extends Method> = Extract<
  paths[P][M],
  { responses: unknown }
>;

type Parameters<O> = O extends { parameters: infer Given } ? Given : never;
type PathParameters<O> = NonNullable<Parameters<O>['path' & keyof Parameters<O>]>;
type QueryParameters<O> = NonNullable<Parameters<O>['query' & keyof Parameters<O>]>;
type Body<O> = O extends { requestBody?: never }
  ? never
  : O extends { requestBody: { content: { 'application/json': infer B } } }
    ? B
    : O extends { requestBody?: { content: { 'application/json': infer B } } }
      ? B | undefined
      : never;

/** The response of a 200, with the envelope's `data` taken out (bare documents stay as they are). */
type Success<O> = O extends { responses: { 200: { content: { 'application/json': infer R } } } }
  ? R extends { success: true; data: infer D }
    ? D
    : R
  : never;

/** What a call takes: path parameters where the path has some, the query, the body. */
export type RequestOptions<P extends keyof paths, M extends Method> = ([
  PathParameters<Operation<P, M>>,
] extends [never]
  ? { path?: undefined }
  : { path: PathParameters<Operation<P, M>> }) &
  ([QueryParameters<Operation<P, M>>] extends [never]
    ? { query?: undefined }
    : { query?: QueryParameters<Operation<P, M>> }) &
  ([Body<Operation<P, M>>] extends [never]
    ? { body?: undefined }
    : { body: Body<Operation<P, M>> }) & {
    /** Writes: makes a retry safe; one is generated per call when none is given. */
    idempotencyKey?: string;
    /** Writes: answer 202 at once with the operation (`Prefer: respond-async`). */
    respondAsync?: boolean;
    headers?: Record<string, string>;
    signal?: AbortSignal;
  };

export type ResponseData<P extends keyof paths, M extends Method> = Success<Operation<P, M>>;

export type Schemas = components['schemas'];
export type OperationView = Schemas['OperationView'];

/** The options argument: optional when the route needs no path parameter and no body. */
export type RequestArgs<P extends keyof paths, M extends Method> =
  object extends RequestOptions<P, M>
    ? [options?: RequestOptions<P, M>]
    : [options: RequestOptions<P, M>];
