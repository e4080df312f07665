import { applyDecorators } from '@nestjs/common';
import { ApiHeader, ApiResponse, type ApiResponseOptions } from '@nestjs/swagger';
import type { ResponseObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { errorName } from '../error-envelope';
import { OPERATION_VIEW } from '../../operations/operation.schema';
import { dateTime, named, strictObject, text, type Schema } from './schema';

export const ERROR_SCHEMA = named(
  'ErrorEnvelope',
  strictObject({
    success: { type: 'boolean', enum: [false] },
    error: { type: 'string', example: 'Bad request' },
    message: { type: 'string', example: 'Invalid request body. network must be one of: ...' },
    timestamp: dateTime,
  }),
);

/** The success envelope around a route's `data`. */
export function envelopeOf(data: Schema): Schema {
  return strictObject({ success: { type: 'boolean', enum: [true] }, data, message: text });
}

/** A typical message of each status, for the examples (the real ones name what went wrong). */
const EXAMPLE_MESSAGES: Record<number, string> = {
  400: 'Invalid request body. network must be one of: solana, evm, ethereum, ...',
  401: 'Invalid api-key',
  403: 'The managed wallet does not hold this item.',
  404: 'No operation with this id in this account.',
  409: 'This Idempotency-Key was used with another request.',
  429: 'Rate limit exceeded for this API key; retry in 1 s.',
  500: 'Something went wrong on our side (request 6f1c...).',
  502: 'The chain refused the transaction: insufficient funds for gas * price + value.',
  503: 'The database is unavailable: nothing was accepted or changed. Retry in 5 s.',
};

/** Every route may answer these: the rate limit, and our side or the database failing. */
const ALWAYS = [429, 500, 503];

/**
 * The error response of each status, once: routes refer to them
 * (`#/components/responses/<status>`, put there by buildOpenApiDocument).
 */
export function errorResponses(): Record<string, ResponseObject> {
  return Object.fromEntries(
    Object.keys(EXAMPLE_MESSAGES).map((status) => [
      errorResponseName(Number(status)),
      {
        description: errorName(Number(status)),
        content: {
          'application/json': {
            schema: ERROR_SCHEMA,
            example: {
              success: false,
              error: errorName(Number(status)),
              message: EXAMPLE_MESSAGES[Number(status)],
              timestamp: '2026-01-01T00:00:00.000Z',
            },
          },
        },
      },
    ]),
  );
}

function errorResponseName(status: number): string {
  return `Error${status}`;
}

export function ApiErrors(statuses: number[]): MethodDecorator {
  const all = [...new Set([...statuses, ...ALWAYS])];
  const unknown = all.filter((status) => !(status in EXAMPLE_MESSAGES));
  if (unknown.length) throw new Error(`No error response for status ${unknown.join(', ')}`);
  return applyDecorators(
    ...all.map((status) =>
      ApiResponse({
        status,
        $ref: `#/components/responses/${errorResponseName(status)}`,
      } as ApiResponseOptions),
    ),
  );
}

/** Documents a route's success envelope with the schema of its `data`, and its error statuses. */
export function ApiEnvelope(description: string, data: Schema, errors: number[]): MethodDecorator {
  return applyDecorators(
    ApiResponse({ status: 200, description, schema: envelopeOf(data) }),
    ApiErrors(errors),
  );
}

/**
 * A write that becomes an operation: 200 once confirmed (within SYNC_WAIT_MS), 202 with the
 * operation still on its way (or asked with `Prefer: respond-async`), an `Idempotency-Key`.
 */
export function ApiOperationWrite(description: string): MethodDecorator {
  return applyDecorators(
    ApiHeader({
      name: 'Idempotency-Key',
      required: false,
      description:
        '1-255 printable ASCII characters: the same request again returns the first operation ' +
        '(`idempotent-replayed: true`) and sends nothing; another request with it is 409.',
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
    }),
    ApiHeader({
      name: 'Prefer',
      required: false,
      description: '`respond-async`: answer 202 at once with the operation to follow.',
      schema: { type: 'string', example: 'respond-async' },
    }),
    ApiResponse({
      status: 200,
      description: `${description}: confirmed on chain`,
      schema: envelopeOf(OPERATION_VIEW),
    }),
    ApiResponse({
      status: 202,
      description:
        'Accepted: the operation is still on its way (or `Prefer: respond-async` was sent); ' +
        'follow it at GET /operations/{operation_id}',
      schema: envelopeOf(OPERATION_VIEW),
    }),
    ApiErrors([400, 401, 403, 404, 409, 502]),
  );
}
