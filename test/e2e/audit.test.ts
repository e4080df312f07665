import { runAuditVerify } from '@test/support/audit-verify';
import { HttpClient } from '@test/support/http-client';
import { startServiceStack, type ServiceStack } from '@test/support/service-stack';

jest.setTimeout(180_000);

const PASSWORD = 'correct horse battery staple';

interface Entry {
  seq: number;
  type: string;
  details: Record<string, unknown>;
  occurred_at: string;
  prev_hash: string;
  hash: string;
}

/**
 * The audit trail over HTTP, with the API and the worker as their own processes: what an
 * account did (registered, signed in, failed to, issued and revoked keys, minted, signed out) is
 * in its own trail, newest first, with the transactions its managed key signed, readable with
 * the session or an API key, and holding no secret.
 */
describe('GET /account/audit', () => {
  let stack: ServiceStack;

  beforeAll(async () => {
    stack = await startServiceStack();
  });

  afterAll(async () => {
    await stack?.stop();
  });

  /** Every entry, following `next_cursor` a small page at a time. */
  async function trail(client: HttpClient): Promise<Entry[]> {
    const entries: Entry[] = [];
    let cursor = '';
    do {
      const page = await client.get(`/account/audit?limit=3${cursor}`);
      expect(page.status).toBe(200);
      entries.push(...(page.body.data.entries as Entry[]));
      cursor = page.body.data.next_cursor ? `&cursor=${page.body.data.next_cursor}` : '';
    } while (cursor);
    return entries;
  }

  it('lists what the account did, newest first, with the transactions it signed', async () => {
    const email = `audit-${Date.now()}@example.com`;
    const session = new HttpClient(stack.http.baseUrl);
    expect((await session.post('/account/register', { email, password: PASSWORD })).status).toBe(
      200,
    );
    const other = new HttpClient(stack.http.baseUrl);
    expect(
      (await other.post('/account/login', { email, password: 'wrong password!' })).status,
    ).toBe(401);
    expect((await other.post('/account/login', { email, password: PASSWORD })).status).toBe(200);
    const issued = await session.post('/account/api-keys', { name: 'backend' });
    const spare = await session.post('/account/api-keys', { name: 'spare' });
    expect((await session.delete(`/account/api-keys/${spare.body.data.id}`)).status).toBe(200);
    const api = stack.http.with({ 'api-key': issued.body.data.key });
    const token = await api.post('/tokens', {
      network: 'base',
      name: 'Audited',
      symbol: 'AUD',
      amount: 1000,
    });
    expect(token.status).toBe(200);
    const mint = await api.post(`/tokens/${token.body.data.mint_address}/mint`, { amount: 5 });
    expect(mint.status).toBe(200);
    expect((await other.post('/account/logout')).status).toBe(200);

    const entries = await trail(session);
    expect(entries.map((entry) => entry.type)).toEqual([
      'session.ended',
      'managed_key.used',
      'managed_key.used',
      'api_key.revoked',
      'api_key.issued',
      'api_key.issued',
      'login.succeeded',
      'login.failed',
      'account.created',
    ]);
    expect(entries.map((entry) => entry.seq)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1]);
    entries.slice(1).forEach((entry, index) => expect(entries[index].prev_hash).toBe(entry.hash));
    expect(entries[1].details).toMatchObject({
      operation_id: mint.body.data.operation_id,
      kind: 'token.mint',
      network: 'base',
      tx: mint.body.data.tx,
    });
    expect(entries[2].details).toMatchObject({
      operation_id: token.body.data.operation_id,
      tx: token.body.data.tx,
    });
    expect(entries[3].details).toMatchObject({
      api_key_id: spare.body.data.id,
      prefix: spare.body.data.prefix,
    });
    expect(entries[8].details).toMatchObject({ email, request_id: expect.any(String) });

    // The same trail with an API key; nothing secret in it.
    const byKey = await api.get('/account/audit?limit=100');
    expect(byKey.status).toBe(200);
    expect(byKey.body.data.entries).toEqual(entries);
    const text = JSON.stringify(entries);
    for (const secret of [issued.body.data.key, spare.body.data.key, PASSWORD, 'wrong password!']) {
      expect(text).not.toContain(secret);
    }

    const verified = await runAuditVerify(stack.services.databaseUrl);
    expect(verified).toMatchObject({ code: 0 });
  });

  it('shows an account its own entries only, and refuses strangers and bad cursors', async () => {
    const session = new HttpClient(stack.http.baseUrl);
    const email = `audit-own-${Date.now()}@example.com`;
    await session.post('/account/register', { email, password: PASSWORD });
    const unknown = await session.post('/account/login', {
      email: `nobody-${Date.now()}@example.com`,
      password: PASSWORD,
    });
    expect(unknown.status).toBe(401);
    expect((await trail(session)).map((entry) => entry.type)).toEqual(['account.created']);

    const stranger = await new HttpClient(stack.http.baseUrl).get('/account/audit');
    expect(stranger.status).toBe(401);
    expect(stranger.body).toMatchObject({ success: false, error: 'Unauthorized' });
    const badKey = await stack.http.get('/account/audit', { 'api-key': 'ais_nope' });
    expect(badKey.status).toBe(401);
    for (const query of ['cursor=abc', 'cursor=0', 'limit=0', 'limit=101']) {
      const response = await session.get(`/account/audit?${query}`);
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ success: false, error: 'Bad request' });
    }
  });
});
