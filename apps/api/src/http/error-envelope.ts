import { ERROR_CODES, type ErrorEnvelope } from '@app/common';

/** `error`: the short name, where the status alone does not tell it (409 Insufficient funds). */
export function errorEnvelope(status: number, message: string, error?: string): ErrorEnvelope {
  return {
    success: false,
    error: error ?? errorName(status),
    message,
    timestamp: new Date().toISOString(),
  };
}

export function errorName(status: number): string {
  const known = Object.values(ERROR_CODES).find((code) => code.status === status);
  if (known) return known.error;
  return status >= 500 ? ERROR_CODES.INTERNAL.error : ERROR_CODES.BAD_REQUEST.error;
}
