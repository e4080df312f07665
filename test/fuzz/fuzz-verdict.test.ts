import { generateCases, type FuzzCase } from './fuzz-cases';
import { DEFAULT_FUZZ_SEED } from './fuzz-random';
import type { FuzzTargets } from './fuzz-routes';
import type { FuzzAnswer } from './fuzz-transport';
import { judge } from './fuzz-verdict';

const family = (network: string) => ({
  network,
  wallet: 'w',
  stranger: 's',
  token: 't',
  collection: 'c',
  item: 'i',
});
const TARGETS: FuzzTargets = {
  apiKey: 'ais_key',
  session: 'ais_session=s',
  victimSession: 'ais_session=v',
  victimKeyIds: ['k'],
  admin: 'Basic x',
  webhookId: '00000000-0000-4000-8000-000000000000',
  email: 'fuzz@example.com',
  password: 'p',
  operationId: 'o',
  metadataId: 'm',
  solana: family('solana'),
  evm: family('base'),
};

const envelope = (status: number): FuzzAnswer => ({
  status,
  headers: { 'x-request-id': 'r', 'content-type': 'application/json' },
  body: Buffer.from(
    JSON.stringify(
      status < 300
        ? { success: true, data: {}, message: 'ok' }
        : { success: false, error: 'e', message: 'm', timestamp: new Date().toISOString() },
    ),
  ),
  ms: 1,
});

/**
 * The fuzz's verdict can fail (issue 26): the kinds of requests that once slipped through are in
 * the default run, and an answer like the one they got is judged a failure.
 */
describe('the fuzz verdict', () => {
  const cases = generateCases(DEFAULT_FUZZ_SEED, 10_500, TARGETS);
  const of = (category: RegExp): FuzzCase[] => cases.filter((c) => category.test(c.category));

  it('sends null fields, prototype-named fields and CONNECT in the default run', () => {
    expect(of(/^null-field\./).length).toBeGreaterThan(50);
    expect(of(/^prototype-name\./).length).toBeGreaterThan(50);
    expect(of(/^method\.CONNECT$/).length).toBeGreaterThan(10);
    const routes = new Set(of(/^null-field\.url$/).map((c) => c.route));
    expect(routes).toContain('PATCH /webhooks/:id');
  });

  it('fails a 2xx to a null field or a prototype-named field, and takes their 400', () => {
    for (const fuzz of [...of(/^null-field\./), ...of(/^prototype-name\./)]) {
      expect(judge(fuzz, envelope(200))).toMatch(/accepted$/);
      expect(judge(fuzz, envelope(400))).toBeUndefined();
    }
  });

  it('fails a CONNECT left without an answer, and a 5xx to anything', () => {
    const [connect] = of(/^method\.CONNECT$/);
    const closed: FuzzAnswer = {
      headers: {},
      body: Buffer.alloc(0),
      failure: 'no answer: ECONNRESET',
      ms: 1,
    };
    expect(judge(connect, closed)).toMatch(/^no-answer/);
    expect(judge(connect, envelope(405))).toBeUndefined();
    expect(judge(cases[0], envelope(500))).toBe('5xx');
  });
});
