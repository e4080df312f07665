import type { ChainFamily } from '@app/config';
import type {
  ReferenceObject,
  SchemaObject,
} from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';

export type Schema = SchemaObject | ReferenceObject;

/** The named response schemas, put under `components.schemas` by buildOpenApiDocument. */
const NAMED = new Map<string, SchemaObject>();

export function namedSchemas(): Record<string, SchemaObject> {
  return Object.fromEntries(NAMED);
}

/** Registers a schema under `name` and returns its `$ref` (one definition, many uses). */
export function named(name: string, schema: SchemaObject): ReferenceObject {
  if (NAMED.has(name)) throw new Error(`OpenAPI schema ${name} is defined twice`);
  NAMED.set(name, schema);
  return { $ref: `#/components/schemas/${name}` };
}

type OptionalKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? K : never }[keyof T];

/**
 * The schema of a response view, tied to its TypeScript type: every field of `T` must be
 * described and nothing else may be, and the fields `T` declares optional are the only ones left
 * out of `required`. The API answers exactly these fields, so no other is allowed.
 */
export function viewSchema<T>(
  name: string,
  properties: { [K in keyof T]-?: Schema },
  optional: OptionalKeys<T>[] = [],
): ReferenceObject {
  return named(name, strictObject(properties, optional as string[]));
}

export function strictObject(
  properties: Record<string, Schema>,
  optional: string[] = [],
): SchemaObject {
  const required = Object.keys(properties).filter((key) => !optional.includes(key));
  return {
    type: 'object',
    additionalProperties: false,
    ...(required.length ? { required } : {}),
    properties,
  };
}

export const text: SchemaObject = { type: 'string' };
export const integer: SchemaObject = { type: 'integer' };
export const number: SchemaObject = { type: 'number' };
export const boolean: SchemaObject = { type: 'boolean' };
export const dateTime: SchemaObject = { type: 'string', format: 'date-time' };
/** A JSON object whose fields are the client's or the chain's own (not a view of ours). */
export const freeObject: SchemaObject = { type: 'object', additionalProperties: true };

export function nullable(schema: SchemaObject): SchemaObject {
  return { ...schema, nullable: true };
}

export function arrayOf(items: Schema): SchemaObject {
  return { type: 'array', items };
}

export function oneOf<T extends string>(values: readonly T[]): SchemaObject {
  return { type: 'string', enum: [...values] };
}

export const chainFamily = oneOf<ChainFamily>(['solana', 'evm']);
