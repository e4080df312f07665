import { apiKeyInUrl } from './api-key-in-url';

describe('apiKeyInUrl', () => {
  it.each(['/w?api-key=x', '/w?API_KEY=x', '/w?apikey=x', '/w?x-api-key=', '/w?q=ais_abc'])(
    'sees a key in %s',
    (url) => expect(apiKeyInUrl(url)).toBe(true),
  );

  it.each(['/w', '/w?network=base', '/ais_abc', '/w?keyboard=1'])('sees none in %s', (url) =>
    expect(apiKeyInUrl(url)).toBe(false),
  );
});
