import { Logger } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DataSource } from 'typeorm';
import { startApiInProcess } from '@test/support/api-app';
import type { HttpClient } from '@test/support/http-client';
import { startTestServices, type TestServices } from '@test/support/test-services';

jest.setTimeout(60_000);

describe('API error handling', () => {
  let services: TestServices;

  beforeAll(async () => {
    services = await startTestServices();
  });

  afterAll(async () => {
    await services.stop();
  });

  describe('when the deployment sets an auth-key', () => {
    let app: NestFastifyApplication;
    let http: HttpClient;
    let apiKey: string;

    beforeAll(async () => {
      ({ app, http } = await startApiInProcess(services, { AUTH_KEY: 'deployment-auth-key' }));
      await http.post('/account/register', {
        email: `auth-key-${Date.now()}@example.com`,
        password: 'correct horse battery staple',
      });
      apiKey = (await http.post('/account/api-keys', {})).body.data.key;
    });

    afterAll(async () => {
      await app.close();
    });

    it('requires it next to the api-key', async () => {
      const missing = await http.post('/wallets', { network: 'solana' }, { 'api-key': apiKey });
      expect(missing.status).toBe(401);
      expect(missing.body).toMatchObject({ error: 'Unauthorized', message: 'Invalid auth-key' });
      const wrong = await http.post(
        '/wallets',
        { network: 'solana' },
        { 'api-key': apiKey, 'auth-key': 'deployment-auth-kez' },
      );
      expect(wrong.status).toBe(401);
      const right = await http.post(
        '/wallets',
        { network: 'solana' },
        { 'api-key': apiKey, 'auth-key': 'deployment-auth-key' },
      );
      expect(right.status).toBe(200);
    });
  });

  describe('when a registration cannot be finished', () => {
    let app: NestFastifyApplication;
    let http: HttpClient;

    beforeAll(async () => {
      ({ app, http } = await startApiInProcess(services));
    });

    afterAll(async () => {
      await app.close();
    });

    it('leaves no account behind, so the same registration succeeds when retried', async () => {
      const dataSource = app.get(DataSource);
      // The session's insert fails: the account and its wallets must not stay without it.
      await dataSource.query(`
        CREATE FUNCTION refuse_session() RETURNS trigger LANGUAGE plpgsql AS
          $$ BEGIN RAISE EXCEPTION 'sessions are refused'; END $$;
        CREATE TRIGGER refuse_session BEFORE INSERT ON sessions
          FOR EACH ROW EXECUTE FUNCTION refuse_session();`);
      const body = {
        email: `half-${Date.now()}@example.com`,
        password: 'correct horse battery staple',
      };
      try {
        expect((await http.post('/account/register', body)).status).toBe(500);
      } finally {
        await dataSource.query(
          `DROP TRIGGER refuse_session ON sessions; DROP FUNCTION refuse_session();`,
        );
      }
      const [{ count }] = await dataSource.query<{ count: string }[]>(
        'SELECT count(*) FROM accounts WHERE email = $1',
        [body.email],
      );
      expect(count).toBe('0');
      const retried = await http.post('/account/register', body);
      expect(retried.status).toBe(200);
      expect(retried.body.data.wallets).toHaveLength(2);
    });
  });

  describe('when something unexpected fails', () => {
    let app: NestFastifyApplication;
    let http: HttpClient;

    beforeAll(async () => {
      ({ app, http } = await startApiInProcess(services));
      await http.post('/account/register', {
        email: `crash-${Date.now()}@example.com`,
        password: 'correct horse battery staple',
      });
    });

    afterAll(async () => {
      await app.close().catch(() => undefined);
    });

    it('answers a 500 envelope without internals and logs the error with the request id', async () => {
      const logged: string[] = [];
      const spy = jest
        .spyOn(Logger.prototype, 'error')
        .mockImplementation((message: unknown, stack?: unknown) => {
          logged.push(`${String(message)} ${String(stack)}`);
        });
      await app.get(DataSource).destroy();
      try {
        const response = await http.get('/account', { 'x-request-id': 'req-500-test' });
        expect(response.status).toBe(500);
        expect(response.body).toEqual({
          success: false,
          error: 'Internal server error',
          message: 'Something went wrong on our side (request req-500-test).',
          timestamp: expect.any(String),
        });
        expect(logged.join('\n')).toContain('req-500-test');
        expect(logged.join('\n')).toMatch(/Error/);
      } finally {
        spy.mockRestore();
      }
    });
  });
});
