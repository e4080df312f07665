import { startServiceStack, type ServiceStack } from '@test/support/service-stack';
import { generateCases, type FuzzCase } from './fuzz-cases';
import { fuzzSeed } from './fuzz-random';
import type { FuzzTargets } from './fuzz-routes';
import { runSlowProbes } from './fuzz-slow-probes';
import { prepareTargets } from './fuzz-targets';
import { FuzzTransport } from './fuzz-transport';
import { FuzzReport } from './fuzz-verdict';

/** Bounds of the run; each can be raised from the environment for a longer hunt. */
const SEED = fuzzSeed(process.env.FUZZ_SEED);
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 10_500);
const CONCURRENCY = Number(process.env.FUZZ_CONCURRENCY ?? 8);
const TIME_LIMIT_MS = Number(process.env.FUZZ_TIME_LIMIT_MS ?? 300_000);
/** An answer slower than this is a failure: no hostile request may hold the server. */
const ANSWER_TIMEOUT_MS = 15_000;
/** How long an unfinished request may stay open before the server must have ended it. */
const SLOW_BOUND_MS = 20_000;
const ADMIN_PASSWORD = 'fuzz-admin-password';

jest.setTimeout(TIME_LIMIT_MS + 240_000);

/**
 * The HTTP edge under generated hostile requests (issue 10, contract "Envelope and errors"):
 * every route and method, with wrong types, sizes, unicode, nesting, encodings, paths, headers,
 * idempotency keys, wrong chain families and huge amounts. Not one answer may be a 5xx or leave
 * the envelope, and /health must be fine afterwards. Deterministic by FUZZ_SEED; to 127.0.0.1.
 */
describe('the HTTP edge under fuzzing', () => {
  let stack: ServiceStack;
  let targets: FuzzTargets;

  beforeAll(async () => {
    stack = await startServiceStack({
      workers: 1,
      env: {
        ADMIN_USER: 'admin',
        ADMIN_PASSWORD,
        // The per-key limit would turn most of the run into 429s and hide what lies behind it.
        RATE_LIMIT_REQUESTS: '10000000',
        // Likewise the sign-in and registration throttles and the key cap (their 429 and 409
        // answers are envelopes too, but would hide what lies behind them).
        LOGIN_LIMIT_PER_EMAIL: '10000000/60',
        LOGIN_LIMIT_PER_IP: '10000000/60',
        REGISTER_LIMIT_PER_EMAIL: '10000000/60',
        REGISTER_LIMIT_PER_IP: '10000000/60',
        ADMIN_LIMIT_PER_IP: '10000000/60',
        MAX_API_KEYS_PER_ACCOUNT: '10000',
        // Without a worker (during the run) a write waits this long before its 202.
        SYNC_WAIT_MS: '200',
        // Unfinished requests are closed (408) well inside the suite's 20 s patience.
        HTTP_HEADERS_TIMEOUT_MS: '5000',
        HTTP_REQUEST_TIMEOUT_MS: '5000',
        LOG_LEVEL: 'warn',
      },
    });
    const admin = `Basic ${Buffer.from(`admin:${ADMIN_PASSWORD}`).toString('base64')}`;
    targets = await prepareTargets(stack.http.baseUrl, admin);
    // Writes accepted during the run stay queued: the run tests the edge, not the chains.
    await stack.stopWorkers();
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it(`answers ${REQUESTS} hostile requests without a 5xx, each in the envelope`, async () => {
    const port = Number(new URL(stack.http.baseUrl).port);
    const transport = new FuzzTransport(port, ANSWER_TIMEOUT_MS);
    const report = new FuzzReport([
      [targets.apiKey, '<api-key>'],
      [targets.session, '<session>'],
      [targets.victimSession, '<victim-session>'],
      [targets.admin, '<admin>'],
    ]);
    const cases = generateCases(SEED, REQUESTS, targets);
    const started = Date.now();
    log(
      `fuzz: seed ${SEED} (FUZZ_SEED=${SEED} replays it), ${cases.length} requests, concurrency ${CONCURRENCY}`,
    );
    const record = report.record.bind(report);
    const [sent] = await Promise.all([
      runCases(transport, cases, CONCURRENCY, started + TIME_LIMIT_MS, record).then((count) => {
        log(`fuzz: main run done in ${Date.now() - started} ms`);
        return count;
      }),
      runSlowProbes(port, transport, targets, SLOW_BOUND_MS, record),
    ]);
    const health = await stack.http.get('/health');
    log(`fuzz: ${sent} sent in ${Date.now() - started} ms (seed ${SEED})\n${report.counts()}`);
    if (report.failures.size) log(`${report.summary()}\n${report.reproductions()}`);

    expect({ health: health.status, success: health.body?.success }).toEqual({
      health: 200,
      success: true,
    });
    expect(sent).toBe(cases.length);
    expect(report.failureCount).toBe(0);
  });
});

/** Sends the cases `concurrency` at a time, in order, until done or past the deadline. */
async function runCases(
  transport: FuzzTransport,
  cases: FuzzCase[],
  concurrency: number,
  deadline: number,
  record: (fuzz: FuzzCase, answer: Awaited<ReturnType<FuzzTransport['send']>>) => void,
): Promise<number> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < cases.length && Date.now() < deadline) {
      const fuzz = cases[next++];
      record(fuzz, await transport.send(fuzz.request));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  return Math.min(next, cases.length);
}

function log(text: string): void {
  process.stdout.write(`${text}\n`);
}
