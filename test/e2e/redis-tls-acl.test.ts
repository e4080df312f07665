import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { settledOperation, summary } from '@test/support/envelope-assertions';
import { EPHEMERAL_REDIS_ARGS, spawnRedisServer, type RedisServerProcess } from '@app/localnet';
import { freePort } from '@test/support/service-process';
import {
  newAccountClient,
  startServiceStack,
  type ServiceStack,
} from '@test/support/service-stack';

jest.setTimeout(120_000);

/**
 * Redis as a managed one is reached: TLS (`rediss://`, a server certificate of a private CA the
 * service trusts through NODE_EXTRA_CA_CERTS) and an ACL user (REDIS_USERNAME, REDIS_PASSWORD),
 * the default user switched off. The whole service runs on it: writes on both families confirm.
 */

const USER = 'ais-service';
const PASSWORD = 'a-long-redis-password';

let dir: string;
let server: RedisServerProcess;
let url: string;
let stack: ServiceStack;

/** A private CA and a server certificate for 127.0.0.1 it signed. */
function certificates(): void {
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const newKey = ['-newkey', 'rsa:2048', '-nodes'];
  openssl(
    'req',
    '-x509',
    ...newKey,
    '-keyout',
    'ca.key',
    '-out',
    'ca.crt',
    '-days',
    '1',
    '-subj',
    '/CN=ais test CA',
  );
  openssl(
    'req',
    ...newKey,
    '-keyout',
    'server.key',
    '-out',
    'server.csr',
    '-subj',
    '/CN=127.0.0.1',
  );
  writeFileSync(join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1\n');
  openssl(
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.crt',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'server.crt',
    '-days',
    '1',
    '-extfile',
    'san.ext',
  );
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ais-redis-tls-'));
  certificates();
  const port = await freePort();
  server = await spawnRedisServer([
    '--port',
    '0',
    '--tls-port',
    String(port),
    '--tls-cert-file',
    join(dir, 'server.crt'),
    '--tls-key-file',
    join(dir, 'server.key'),
    '--tls-ca-cert-file',
    join(dir, 'ca.crt'),
    '--tls-auth-clients',
    'no',
    '--user',
    'default',
    'off',
    '--user',
    USER,
    'on',
    `>${PASSWORD}`,
    '~*',
    '&*',
    '+@all',
    ...EPHEMERAL_REDIS_ARGS,
  ]);
  url = `rediss://127.0.0.1:${port}`;
  stack = await startServiceStack({
    env: {
      REDIS_URL: url,
      REDIS_USERNAME: USER,
      REDIS_PASSWORD: PASSWORD,
      NODE_EXTRA_CA_CERTS: join(dir, 'ca.crt'),
    },
  });
});

afterAll(async () => {
  await stack?.stop();
  await server?.stop();
});

it('refuses a client without the ACL user, and one that does not trust the CA', async () => {
  const anonymous = new Redis(url, {
    tls: { ca: readFileSync(join(dir, 'ca.crt')) },
    enableReadyCheck: false,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    lazyConnect: true,
  });
  anonymous.on('error', () => undefined);
  await expect(anonymous.connect().then(() => anonymous.ping())).rejects.toThrow(
    /NOAUTH|NOPERM|WRONGPASS|disabled/,
  );
  anonymous.disconnect();
  const untrusting = new Redis(url, {
    username: USER,
    password: PASSWORD,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    lazyConnect: true,
  });
  const errors: string[] = [];
  untrusting.on('error', (error: Error) => errors.push(error.message));
  await expect(untrusting.connect()).rejects.toThrow();
  expect(errors.join(' ')).toMatch(/certificate/);
  untrusting.disconnect();
});

it.each(['base', 'solana'])('serves writes over TLS as the ACL user (%s)', async (network) => {
  const { api } = await newAccountClient(stack.http);
  const created = await api.post('/tokens', {
    network,
    name: 'Over TLS',
    symbol: 'TLS',
    amount: 5,
  });
  expect(summary(created)).toMatchObject({ status: 200, body: { data: { status: 'confirmed' } } });
  const minted = await api.post(
    `/tokens/${created.body.data.mint_address}/mint`,
    { network, amount: 1 },
    { prefer: 'respond-async' },
  );
  expect(summary(minted)).toMatchObject({ status: 202 });
  const settled = await settledOperation(api, minted.body.data.operation_id, 20_000);
  expect(settled.status).toBe('confirmed');
});
