/**
 * Reads: the service's GET endpoints against a bare Fastify + pg handler of the same single-row
 * query (the baseline), in one run, on one stack (API and worker as their own processes, EVM on
 * anvil). Each read is loaded by autocannon (BENCH_CONNECTIONS=64 for BENCH_SECONDS=10, after a
 * warm-up that also fills the chain-read cache), then timed one request at a time.
 * Run: npm run bench:reads   (BENCH_ONLY=<regex> picks reads; SERVICE_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles)
 */
import autocannon from 'autocannon';
import { newAccountClient, startServiceStack } from '@test/support/service-stack';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { freePort } from '@test/support/service-process';
import type { HttpClient } from '@test/support/http-client';
import { percentile, round } from './stats';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP_SECONDS = 2;
const SEQUENTIAL_REQUESTS = 200;
const IMAGE = 'https://example.com/image.png';

export interface ReadRow {
  read: string;
  'req/s': number;
  'p50 ms': number;
  'p99 ms': number;
  ratio: number;
  /** One request at a time: the latency a lone client sees. */
  'alone p50 ms': number;
}

interface Target {
  read: string;
  url: string;
  headers: Record<string, string>;
}

export async function run(): Promise<ReadRow[]> {
  const stack = await startServiceStack({
    env: { RATE_LIMIT_REQUESTS: '1000000000', ...extraServiceEnv() },
  });
  const baselinePort = await freePort();
  const baseline = await startBareServer(stack.env.DATABASE_URL, baselinePort);
  try {
    const { api, key, account } = await newAccountClient(stack.http);
    const assets = await createAssets(api);
    const wallet = account.wallets.find((w) => w.network === 'evm')!.public_key;
    const auth = { 'api-key': key };
    const base = stack.http.baseUrl;
    const targets: Target[] = [
      {
        read: 'bare fastify + pg (baseline)',
        url: `http://127.0.0.1:${baselinePort}/metadata/${assets.metadataId}`,
        headers: {},
      },
      { read: 'GET /metadata/{id}', url: `${base}/metadata/${assets.metadataId}`, headers: {} },
      {
        read: 'GET /operations/{id}',
        url: `${base}/operations/${assets.operationId}`,
        headers: auth,
      },
      { read: 'GET /tokens/{mint}', url: `${base}/tokens/${assets.token}`, headers: auth },
      {
        read: 'GET /nfts/{collection}',
        url: `${base}/nfts/${assets.collection}`,
        headers: auth,
      },
      {
        read: 'GET /nfts/{collection}?token_id=',
        url: `${base}/nfts/${assets.collection}?token_id=${assets.tokenId}`,
        headers: auth,
      },
      { read: 'GET /wallets/{address}', url: `${base}/wallets/${wallet}`, headers: auth },
    ];
    // BENCH_ONLY="operations|metadata": the baseline and the reads whose name matches (profiling).
    const only = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY) : null;
    const chosen = targets.filter((target, i) => i === 0 || !only || only.test(target.read));
    const rows: ReadRow[] = [];
    for (const target of chosen) {
      const loaded = await load(target);
      const alone = await oneAtATime(target);
      rows.push({
        read: target.read,
        'req/s': round(loaded.rate, 0),
        'p50 ms': round(percentile(loaded.latencies, 50), 2),
        'p99 ms': round(percentile(loaded.latencies, 99), 2),
        ratio: round(loaded.rate / (rows[0]?.['req/s'] ?? loaded.rate), 2),
        'alone p50 ms': round(percentile(alone, 50), 2),
      });
    }
    return rows;
  } finally {
    baseline.kill();
    await once(baseline, 'exit');
    await stack.stop();
  }
}

/** The baseline's own process, as the API runs in its own. */
async function startBareServer(databaseUrl: string, port: number) {
  const child = spawn(
    process.execPath,
    ['-r', '@swc-node/register', join(__dirname, 'bare-read-server.ts')],
    { env: { ...process.env, DATABASE_URL: databaseUrl, PORT: String(port) }, stdio: 'pipe' },
  );
  child.stderr.pipe(process.stderr);
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('listening')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`bare server exited with ${code}`)));
  });
  return child;
}

/** BENCH_SERVICE_ENV="LOG_LEVEL=warn CHAIN_READ_CACHE_TTL_MS=0": the service's env for a run. */
function extraServiceEnv(): Record<string, string> {
  const pairs = (process.env.BENCH_SERVICE_ENV ?? '').split(' ').filter(Boolean);
  return Object.fromEntries(pairs.map((pair) => pair.split('=', 2) as [string, string]));
}

/** An EVM token, a collection with one item (sync writes), and what the reads name. */
async function createAssets(api: HttpClient) {
  const token = await confirmed(api, '/tokens', {
    network: 'base',
    name: 'Bench token',
    symbol: 'BNCH',
    amount: 1000,
  });
  const collection = await confirmed(api, '/nfts', {
    network: 'base',
    name: 'Bench collection',
    symbol: 'BNFT',
    description: 'A collection to read',
    images: [IMAGE],
  });
  const item = await confirmed(api, `/nfts/${String(collection.mint_address)}/mint`, {
    name: 'Bench item',
    description: 'An item to read',
    images: [IMAGE],
  });
  return {
    token: token.mint_address as string,
    collection: collection.mint_address as string,
    tokenId: item.token_id as string,
    operationId: item.operation_id as string,
    metadataId: (collection.metadata_uri as string).split('/').pop()!,
  };
}

async function confirmed(api: HttpClient, path: string, body: object) {
  const response = await api.post(path, body);
  if (response.status !== 200 || response.body.data.status !== 'confirmed') {
    throw new Error(`${path}: ${response.status} ${JSON.stringify(response.body)}`);
  }
  return response.body.data as Record<string, unknown>;
}

/** Req/s and every response's latency (ms) under CONNECTIONS concurrent clients. */
async function load(target: Target): Promise<{ rate: number; latencies: number[] }> {
  await autocannonRun(target, WARMUP_SECONDS, () => undefined);
  const latencies: number[] = [];
  const result = await autocannonRun(target, SECONDS, (ms) => latencies.push(ms));
  return { rate: result.requests.total / (result.duration || SECONDS), latencies };
}

async function autocannonRun(
  target: Target,
  seconds: number,
  onLatency: (ms: number) => void,
): Promise<autocannon.Result> {
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      { url: target.url, headers: target.headers, connections: CONNECTIONS, duration: seconds },
      (error: Error | null, finished) => (error ? reject(error) : resolve(finished)),
    );
    instance.on('response', (_client, _status, _bytes, responseTime) => onLatency(responseTime));
  });
  if (result.non2xx > 0 || result.errors > 0 || result.requests.total === 0) {
    throw new Error(
      `${target.read}: ${result.non2xx} non-2xx, ${result.errors} errors of ${result.requests.total}`,
    );
  }
  return result;
}

async function oneAtATime(target: Target): Promise<number[]> {
  const latencies: number[] = [];
  for (let i = 0; i < SEQUENTIAL_REQUESTS; i++) {
    const started = performance.now();
    const response = await fetch(target.url, { headers: target.headers });
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`${target.read}: ${response.status}`);
    latencies.push(performance.now() - started);
  }
  return latencies;
}

if (require.main === module) {
  run().then(
    (rows) => {
      console.table(rows);
      process.exit(0);
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
