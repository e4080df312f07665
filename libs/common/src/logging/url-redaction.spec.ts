import { redactUrl } from './url-redaction';

const KEY = 'ais_' + 'Zm9vYmFyYmF6cXV4'.repeat(3);

describe('redactUrl', () => {
  it('leaves a URL without credentials as it is', () => {
    expect(redactUrl('/tokens/abc')).toBe('/tokens/abc');
    expect(redactUrl('/events?limit=5&cursor=x')).toBe('/events?limit=5&cursor=x');
  });

  it.each([
    'api-key',
    'API_KEY',
    'apikey',
    'x-api-key',
    'key',
    'token',
    'access_token',
    'secret',
    'client_secret',
    'password',
    'passwd',
    'session',
    'sig',
    'signature',
    'api%2Dkey',
  ])('redacts the value of the query parameter %s', (name) => {
    expect(redactUrl(`/wallets/x?network=base&${name}=hunter2&limit=5`)).toBe(
      `/wallets/x?network=base&${name}=[Redacted]&limit=5`,
    );
  });

  it('redacts an API key wherever it stands, under any name or in the path', () => {
    expect(redactUrl(`/wallets/x?q=${KEY}`)).toBe('/wallets/x?q=[Redacted]');
    expect(redactUrl(`/tokens/${KEY}/mint`)).toBe('/tokens/[Redacted]/mint');
    expect(redactUrl(`https://h.example/a?api-key=${KEY}#${KEY}`)).not.toContain(KEY.slice(4));
  });
});
