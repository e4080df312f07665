import { applyDecorators } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import { ERROR_CODES } from '@app/common';

const SUCCESS_SCHEMA = {
  type: 'object',
  required: ['success', 'data', 'message'],
  properties: {
    success: { type: 'boolean', enum: [true] },
    data: { type: 'object' },
    message: { type: 'string' },
  },
};

export const ERROR_SCHEMA = {
  type: 'object',
  required: ['success', 'error', 'message'],
  properties: {
    success: { type: 'boolean', enum: [false] },
    error: { type: 'string', example: 'Bad request' },
    message: { type: 'string', example: 'Invalid request body. network must be one of: ...' },
    timestamp: { type: 'string', format: 'date-time' },
  },
};

/** Documents a route's success envelope and the error statuses it can answer. */
export function ApiEnvelope(description: string, errors: number[]): MethodDecorator {
  const known = Object.values(ERROR_CODES);
  return applyDecorators(
    ApiResponse({ status: 200, description, schema: SUCCESS_SCHEMA }),
    ...[...errors, 500].map((status) =>
      ApiResponse({
        status,
        description: known.find((code) => code.status === status)?.error ?? 'Error',
        schema: ERROR_SCHEMA,
      }),
    ),
  );
}
