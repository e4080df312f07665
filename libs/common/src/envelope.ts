/** The response envelopes of the spec (2.2, 2.3). */
export interface SuccessEnvelope<T extends object = Record<string, unknown>> {
  success: true;
  data: T;
  message: string;
}

export interface ErrorEnvelope {
  success: false;
  error: string;
  message: string;
  timestamp: string;
}

export function ok<T extends object>(data: T, message: string): SuccessEnvelope<T> {
  return { success: true, data, message };
}
