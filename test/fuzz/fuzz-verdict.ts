import type { FuzzCase } from './fuzz-cases';
import { CLOSED_WITHOUT_ANSWER } from './fuzz-slow-probes';
import type { FuzzAnswer } from './fuzz-transport';

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/**
 * What the contract asks of every answer, whatever was sent: never a 5xx, an `x-request-id`,
 * and the envelope (`success: true` on 2xx; `success: false, error, message, timestamp` on
 * errors). Documented exceptions: a route's non-envelope success (hosted documents, pages,
 * metrics), and bodiless answers (HEAD, 204, 304). Returns the problem, or undefined.
 */
export function judge(fuzz: FuzzCase, answer: FuzzAnswer): string | undefined {
  if (fuzz.closeIsAnswer && answer.failure === CLOSED_WITHOUT_ANSWER) return undefined;
  if (answer.failure || answer.status === undefined) return `no-answer: ${answer.failure}`;
  const status = answer.status;
  if (status >= 500) return '5xx';
  if (!answer.headers['x-request-id']) return 'no-x-request-id';
  if (fuzz.mustRefuse && status < 300) return `${fuzz.mustRefuse} accepted`;
  if (fuzz.request.method === 'HEAD' || status === 204 || status === 304) return undefined;
  if (fuzz.bareSuccess && status < 400) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(answer.body.toString('utf8'));
  } catch {
    return `not-envelope: not JSON (${String(answer.headers['content-type'] ?? 'no content-type')})`;
  }
  const envelope = (typeof body === 'object' && body !== null ? body : {}) as Record<
    string,
    unknown
  >;
  if (status < 300)
    return envelope.success === true ? undefined : 'not-envelope: 2xx without success: true';
  const ok =
    envelope.success === false &&
    typeof envelope.error === 'string' &&
    envelope.error.length > 0 &&
    typeof envelope.message === 'string' &&
    typeof envelope.timestamp === 'string' &&
    ISO_MS.test(envelope.timestamp);
  return ok ? undefined : 'not-envelope: error without success/error/message/timestamp';
}

interface Failure {
  problem: string;
  count: number;
  example: { fuzz: FuzzCase; answer: FuzzAnswer };
}

/** Counts by status and by route, and one smallest reproduction per distinct failure. */
export class FuzzReport {
  readonly byStatus = new Map<string, number>();
  readonly byRoute = new Map<string, Map<string, number>>();
  readonly failures = new Map<string, Failure>();
  total = 0;
  slowest = 0;

  constructor(private readonly secrets: readonly (readonly [string, string])[]) {}

  record(fuzz: FuzzCase, answer: FuzzAnswer): void {
    this.total++;
    this.slowest = Math.max(this.slowest, answer.ms);
    const status = answer.status === undefined ? 'no answer' : String(answer.status);
    increment(this.byStatus, status);
    const route = this.byRoute.get(fuzz.route) ?? new Map<string, number>();
    this.byRoute.set(fuzz.route, route);
    increment(route, status);
    const problem = judge(fuzz, answer);
    if (!problem) return;
    // Distinct: the same problem and status, on the same route, from the same kind of input.
    const key = `${problem.split(':')[0]} ${status} ${fuzz.route} ${fuzz.category}`;
    const known = this.failures.get(key);
    if (!known) {
      this.failures.set(key, { problem, count: 1, example: { fuzz, answer } });
      return;
    }
    known.count++;
    if (size(fuzz) < size(known.example.fuzz)) known.example = { fuzz, answer };
  }

  get failureCount(): number {
    return [...this.failures.values()].reduce((sum, failure) => sum + failure.count, 0);
  }

  counts(): string {
    const statuses = [...this.byStatus].sort(([a], [b]) => a.localeCompare(b));
    const lines = [
      `${this.total} requests; slowest answer ${this.slowest} ms`,
      'by status: ' + statuses.map(([status, count]) => `${status}×${count}`).join('  '),
      'by route:',
    ];
    for (const [route, statusCounts] of [...this.byRoute].sort(([a], [b]) => a.localeCompare(b))) {
      const total = [...statusCounts.values()].reduce((sum, count) => sum + count, 0);
      const detail = [...statusCounts]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([status, count]) => `${status}×${count}`)
        .join(' ');
      lines.push(`  ${route.padEnd(36)} ${String(total).padStart(5)}  ${detail}`);
    }
    return lines.join('\n');
  }

  /** The failures by problem, status and kind of input, with the routes each was seen on. */
  summary(): string {
    const groups = new Map<string, { count: number; routes: Set<string> }>();
    for (const failure of this.failures.values()) {
      const { fuzz, answer } = failure.example;
      const key = `${failure.problem} | ${answer.status ?? 'no answer'} | ${fuzz.category}`;
      const group = groups.get(key) ?? { count: 0, routes: new Set<string>() };
      groups.set(key, group);
      group.count += failure.count;
      group.routes.add(fuzz.route);
    }
    const lines = ['failures by problem | status | input (count, routes):'];
    for (const [key, group] of [...groups].sort(([a], [b]) => a.localeCompare(b))) {
      lines.push(`  ${key}  ×${group.count}  on ${[...group.routes].sort().join(', ')}`);
    }
    return lines.join('\n');
  }

  /** Every distinct failure with its smallest example, ready to replay by hand. */
  reproductions(limit = 500): string {
    const sorted = [...this.failures].sort(([a], [b]) => a.localeCompare(b));
    const lines = [`${this.failureCount} failing answers, ${sorted.length} distinct:`];
    for (const [key, failure] of sorted.slice(0, limit)) {
      const { fuzz, answer } = failure.example;
      const body = fuzz.request.body;
      lines.push(
        `- [${key}] ×${failure.count}: ${failure.problem}`,
        `    request (case #${fuzz.index}): ${fuzz.request.method} ${this.excerpt(fuzz.request.path, 200)}`,
        `    headers: ${fuzz.request.headers.map(([name, value]) => `${name}: ${this.excerpt(value, 80)}`).join(' | ')}`,
        `    body (${body?.length ?? 0} bytes): ${body ? this.excerpt(body.toString('utf8'), 300) : '-'}`,
        `    answer: ${answer.status ?? answer.failure} x-request-id=${String(answer.headers['x-request-id'] ?? '-')} ` +
          `content-type=${String(answer.headers['content-type'] ?? '-')} ${this.excerpt(answer.body.toString('utf8'), 300)}`,
      );
    }
    if (sorted.length > limit) lines.push(`... and ${sorted.length - limit} more`);
    return lines.join('\n');
  }

  /** The start of a text, escaped (NUL and lone surrogates show), the run's secrets named. */
  private excerpt(text: string, max: number): string {
    let out = text;
    for (const [secret, name] of this.secrets) out = out.split(secret).join(name);
    const cut = out.length > max ? `${out.slice(0, max)}… (${out.length} chars)` : out;
    return JSON.stringify(cut);
  }
}

function increment(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

function size(fuzz: FuzzCase): number {
  const headers = fuzz.request.headers.reduce(
    (sum, [name, value]) => sum + name.length + value.length,
    0,
  );
  return fuzz.request.path.length + headers + (fuzz.request.body?.length ?? 0);
}
