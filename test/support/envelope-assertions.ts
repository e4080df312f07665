import type { HttpClient, HttpResponse } from './http-client';

/** Assertions on the contract's envelopes, shared by the end-to-end suites. */
export type Data = Record<string, any>;

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** The response in full, so a wrong status shows the body that came with it. */
export function summary(response: HttpResponse): { status: number; body: unknown } {
  return { status: response.status, body: response.body };
}

/** A write answered 200, confirmed, with the contract's common fields. Returns `data`. */
export function expectConfirmedEnvelope(response: HttpResponse, network: string, tx: RegExp): Data {
  expect(summary(response)).toMatchObject({ status: 200 });
  expect(response.body).toMatchObject({ success: true, message: expect.any(String) });
  const data = response.body.data as Data;
  expect(data).toMatchObject({
    operation_id: expect.stringMatching(UUID),
    status: 'confirmed',
    network,
    tx: expect.stringMatching(tx),
    created_at: expect.stringMatching(ISO_MS),
  });
  return data;
}

/** The contract's error envelope with this status and short name. */
export function expectError(
  response: HttpResponse,
  status: number,
  error: string,
  message: RegExp = /./,
): void {
  expect(summary(response)).toMatchObject({ status });
  expect(response.body).toEqual({
    success: false,
    error,
    message: expect.stringMatching(message),
    timestamp: expect.stringMatching(ISO_MS),
  });
  if (status === 400) expect(response.body.message).toMatch(/^Invalid request body\. /);
}

/** Follows GET /operations/{id} until the operation settles (bounded). */
export function settledOperation(api: HttpClient, id: string, timeoutMs = 20_000): Promise<Data> {
  return operationUntil(
    api,
    id,
    (data) => data.status === 'confirmed' || data.status === 'failed',
    timeoutMs,
  );
}

/** Follows GET /operations/{id} until its view satisfies `done` (bounded). */
export async function operationUntil(
  api: HttpClient,
  id: string,
  done: (data: Data) => boolean,
  timeoutMs = 20_000,
): Promise<Data> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await api.get(`/operations/${id}`);
    expect(summary(response)).toMatchObject({ status: 200 });
    const data = response.body.data as Data;
    if (done(data)) return data;
    if (Date.now() > deadline) throw new Error(`Operation ${id} still ${data.status}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
