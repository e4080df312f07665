import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { startApiInProcess } from '@test/support/api-app';
import { queryDatabase } from '@test/support/chain-reads';
import { expectError } from '@test/support/envelope-assertions';
import { HttpClient, type HttpResponse } from '@test/support/http-client';
import { startPgAnswerCutter, type PgAnswerCutter } from '@test/support/pg-answer-cutter';
import { startTestServices, type TestServices } from '@test/support/test-services';

jest.setTimeout(60_000);

/**
 * A write whose connection is cut after Postgres committed it (a primary dying, the network
 * dropping, between the commit and its answer) is accepted, not refused: the API reads its row
 * back and answers 202. Told "nothing was accepted", a client without an Idempotency-Key would
 * send it again and mint twice. Where the API cannot tell, its 503 says so and names the id.
 * The API reaches Postgres through a proxy that loses the one answer (pg-answer-cutter).
 */
describe('a write whose commit answer is lost', () => {
  let services: TestServices;
  let cutter: PgAnswerCutter;
  let app: NestFastifyApplication;
  let api: HttpClient;

  beforeAll(async () => {
    services = await startTestServices();
    cutter = await startPgAnswerCutter(services.databaseUrl);
    let http: HttpClient;
    ({ app, http } = await startApiInProcess(services, {
      DATABASE_URL: cutter.url,
      DATABASE_CONNECT_TIMEOUT_MS: '1000',
      QUEUE_PREFIX: `commit-answer-lost-${Date.now()}`,
    }));
    const session = new HttpClient(http.baseUrl);
    await session.post('/account/register', {
      email: `commit-answer-lost-${Date.now()}@example.com`,
      password: 'correct horse battery staple',
    });
    const key = (await session.post('/account/api-keys', {})).body.data.key;
    api = session.with({ 'api-key': key });
  });

  afterEach(() => cutter.restore());

  afterAll(async () => {
    await app?.close();
    await cutter?.close();
    await services?.stop();
  });

  function createToken(idempotencyKey?: string): Promise<HttpResponse> {
    return api.post(
      '/tokens',
      { network: 'base', name: 'Cut', symbol: 'CUT', amount: 1 },
      {
        prefer: 'respond-async',
        ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
      },
    );
  }

  async function storedOperations(): Promise<string[]> {
    const rows = await queryDatabase<{ id: string }>(
      services.databaseUrl,
      'SELECT id FROM operations ORDER BY created_at',
    );
    return rows.map((row) => row.id);
  }

  it('accepts a keyed write whose answer was lost, and replays it', async () => {
    const before = await storedOperations();
    // The operation and its key are one statement, committed as it ends.
    cutter.arm({ after: 'INSERT INTO "idempotency_keys"', mode: 'answer-lost' });
    const key = `lost-commit-${Date.now()}`;
    const response = await createToken(key);
    expect(cutter.done).toBe(true);
    expect(response.status).toBe(202);
    const id = response.body.data.operation_id;
    expect(await storedOperations()).toEqual([...before, id]);

    const replay = await createToken(key);
    expect(replay.body.data.operation_id).toBe(id);
    expect(await storedOperations()).toEqual([...before, id]);
  });

  it('accepts a write without a key whose INSERT answer was lost', async () => {
    const before = await storedOperations();
    cutter.arm({ after: 'INSERT INTO "operations"', mode: 'answer-lost' });
    const response = await createToken();
    expect(cutter.done).toBe(true);
    expect(response.status).toBe(202);
    expect(await storedOperations()).toEqual([...before, response.body.data.operation_id]);
  });

  it('answers 503 naming the operation when the database went with the answer', async () => {
    const before = await storedOperations();
    cutter.arm({ after: 'INSERT INTO "operations"', mode: 'answer-lost', thenDown: true });
    const response = await createToken();
    expect(cutter.done).toBe(true);
    expectError(response, 503, 'Service unavailable');
    expect(response.headers.get('retry-after')).toBe('5');
    const named = /it is operation ([0-9a-f-]{36}): retry with the same Idempotency-Key/.exec(
      response.body.message as string,
    );
    expect(named).not.toBeNull();
    // It had committed: once the database is back, the id the 503 named is there.
    cutter.restore();
    expect(await storedOperations()).toEqual([...before, named![1]]);
    expect((await api.get(`/operations/${named![1]}`)).status).toBe(200);
  });

  it('stores nothing when the INSERT never reached Postgres', async () => {
    const before = await storedOperations();
    cutter.arm({ after: 'INSERT INTO "operations"', mode: 'never-sent' });
    const response = await createToken();
    expect(cutter.done).toBe(true);
    expectError(response, 503, 'Service unavailable');
    const named = /it is operation ([0-9a-f-]{36})/.exec(response.body.message as string);
    expect((await api.get(`/operations/${named![1]}`)).status).toBe(404);
    expect(await storedOperations()).toEqual(before);
  });

  // Last: its twelve requests leave the API's pool more connections, and the 503 cases above
  // need the cut connection to be the one the API would read back on.
  it('accepts each write of a group stored in one INSERT whose answer was lost, once', async () => {
    const before = await storedOperations();
    // Only a group's INSERT reads its rows from arrays; a write alone gives its row's values.
    cutter.arm({ after: 'SELECT * FROM unnest(', mode: 'answer-lost' });
    const responses = await Promise.all(Array.from({ length: 12 }, () => createToken()));
    expect(cutter.done).toBe(true);
    expect(responses.map((response) => response.status)).toEqual(responses.map(() => 202));
    const ids = responses.map((response) => response.body.data.operation_id as string);
    const stored = await storedOperations();
    expect(stored.slice(0, before.length)).toEqual(before);
    expect(stored.slice(before.length).sort()).toEqual([...ids].sort());
  });
});
