import {
  startLocalChains,
  startTcpProxy,
  type LocalChains,
  type LocalChainsOptions,
  type TcpProxy,
} from '@app/localnet';
import { HttpClient } from './http-client';
import { startJsonRpcRecorder, type JsonRpcRecorder } from './json-rpc-recorder';
import { freePort, startServiceProcess, type ServiceProcess } from './service-process';
import { pkcs11SignerEnv } from './softhsm';
import { startTestServices, type TestServices } from './test-services';

export interface ServiceStack {
  services: TestServices;
  chains: LocalChains;
  api: ServiceProcess;
  workers: ServiceProcess[];
  http: HttpClient;
  env: Record<string, string>;
  /** With `rpcProxies`: the service reaches the chains through these, which can be cut. */
  rpcProxies: TcpProxy[];
  /** The same proxies by chain endpoint, in the order of the service's URL lists. */
  proxies: { evm: TcpProxy[]; solana: TcpProxy[]; solanaWs: TcpProxy[] };
  /** With `redisProxy: true`: the service reaches Redis through this, which can be cut. */
  redisProxy?: TcpProxy;
  /** With `evmRecorder: true`: the service's EVM JSON-RPC calls, recorded (and shaped). */
  evmRecorder?: JsonRpcRecorder;
  /** Starts one more worker process on the same stack (e.g. after killing one). */
  startWorker(extraEnv?: Record<string, string>): Promise<ServiceProcess>;
  /** Stops every running worker (SIGTERM) and forgets them. */
  stopWorkers(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The whole service as a user runs it: real Postgres and Redis, local chains, and the API and
 * worker(s) as their own processes on the `local` profile.
 */
export async function startServiceStack(
  options: {
    workers?: number;
    env?: Record<string, string>;
    workerEnv?: Record<string, string>;
    /** Options of the local chains, e.g. `{ slotMs: 5 }` for a fast Solana slot clock. */
    chains?: LocalChainsOptions;
    /**
     * Put a TCP proxy between the service and each chain endpoint (for RPC outages); a number
     * puts that many in front of each RPC endpoint, given to the service as a comma-separated
     * list (failover). The Solana WebSocket URL takes one.
     */
    rpcProxies?: boolean | number;
    /** Put a TCP proxy between the service (API and workers) and Redis (for Redis outages). */
    redisProxy?: boolean;
    /** Put a JSON-RPC recorder between the service and the EVM chain (its first endpoint). */
    evmRecorder?: boolean;
    /** The Postgres server the suite's database is made on (default: startTestServices'). */
    postgresUrl?: string;
  } = {},
): Promise<ServiceStack> {
  const [servicesStart, chainsStart] = await Promise.allSettled([
    startTestServices(options.postgresUrl),
    startLocalChains({ evmPort: 0, solanaPort: 0, solanaWsPort: 0, ...options.chains }),
  ]);
  if (servicesStart.status === 'rejected' || chainsStart.status === 'rejected') {
    // Whichever did start is stopped: chains left running keep the test process alive.
    if (servicesStart.status === 'fulfilled') await servicesStart.value.stop();
    if (chainsStart.status === 'fulfilled') await chainsStart.value.stop();
    throw [servicesStart, chainsStart].find((start) => start.status === 'rejected')!.reason;
  }
  const [services, chains] = [servicesStart.value, chainsStart.value];
  const port = await freePort();
  const perEndpoint = options.rpcProxies === true ? 1 : Number(options.rpcProxies ?? 0);
  const proxiesOf = (url: string, count: number) =>
    Promise.all(Array.from({ length: count }, () => startTcpProxy(url)));
  const [evm, solana, solanaWs] = await Promise.all([
    proxiesOf(chains.evmRpcUrl, perEndpoint),
    proxiesOf(chains.solanaRpcUrl, perEndpoint),
    proxiesOf(chains.solanaWsUrl, Math.min(perEndpoint, 1)),
  ]);
  const proxies = { evm, solana, solanaWs };
  const rpcProxies = [...evm, ...solana, ...solanaWs];
  const urlsOf = (list: TcpProxy[], direct: string) =>
    list.length ? list.map((proxy) => proxy.url).join(',') : direct;
  const evmRecorder = options.evmRecorder
    ? await startJsonRpcRecorder(urlsOf(evm, chains.evmRpcUrl).split(',')[0])
    : undefined;
  const evmRpcUrl = evmRecorder?.url ?? urlsOf(evm, chains.evmRpcUrl);
  const solanaRpcUrl = urlsOf(solana, chains.solanaRpcUrl);
  const solanaWsUrl = urlsOf(solanaWs, chains.solanaWsUrl);
  const redisProxy = options.redisProxy ? await startTcpProxy(services.redisUrl) : undefined;
  const allProxies: { close(): Promise<void> }[] = [
    ...rpcProxies,
    ...(redisProxy ? [redisProxy] : []),
    ...(evmRecorder ? [evmRecorder] : []),
  ];
  const env: Record<string, string> = {
    APP_PROFILE: 'local',
    DATABASE_URL: services.databaseUrl,
    REDIS_URL: redisProxy?.url ?? services.redisUrl,
    QUEUE_PREFIX: `ais-test-${port}`,
    API_PORT: String(port),
    LOCAL_EVM_RPC_URL: evmRpcUrl,
    LOCAL_SOLANA_RPC_URL: solanaRpcUrl,
    LOCAL_SOLANA_WS_URL: solanaWsUrl,
    RECONCILE_INTERVAL_MS: '500',
    ...(process.env.TEST_SIGNER_BACKEND === 'pkcs11' ? pkcs11SignerEnv() : {}),
    ...options.env,
  };
  const startWorker = (extraEnv: Record<string, string> = {}) =>
    startServiceProcess('worker', { ...env, ...options.workerEnv, ...extraEnv }, /Worker ready/);
  const starts = await Promise.allSettled([
    startServiceProcess('api', env, /API listening/),
    ...Array.from({ length: options.workers ?? 1 }, () => startWorker()),
  ]);
  const failed = starts.find((start) => start.status === 'rejected');
  if (failed) {
    // Nothing of a failed start is left running: processes, proxies, chains, database.
    const started = starts.filter((start) => start.status === 'fulfilled');
    await Promise.all(started.map((start) => start.value.stop()));
    await Promise.all(allProxies.map((proxy) => proxy.close()));
    await Promise.all([services.stop(), chains.stop()]);
    throw failed.reason;
  }
  const [api, ...workers] = starts.map(
    (start) => (start as PromiseFulfilledResult<ServiceProcess>).value,
  );
  if (env.SIGNER_BACKEND === 'pkcs11') {
    // A run meant to sign in the token (TEST_SIGNER_BACKEND=pkcs11) must not pass on local keys.
    for (const service of [api, ...workers]) {
      if (!/sign in PKCS#11 token/.test(service.output())) {
        throw new Error(`A service process did not open the PKCS#11 token:\n${service.output()}`);
      }
    }
  }
  const stack: ServiceStack = {
    services,
    chains,
    api,
    workers,
    http: new HttpClient(`http://127.0.0.1:${port}`),
    env,
    rpcProxies,
    proxies,
    redisProxy,
    evmRecorder,
    startWorker: async (extraEnv) => {
      const worker = await startWorker(extraEnv);
      stack.workers.push(worker);
      return worker;
    },
    stopWorkers: async () => {
      await Promise.all(stack.workers.splice(0).map((worker) => worker.stop()));
    },
    stop: async () => {
      await Promise.all([api.stop(), ...stack.workers.map((worker) => worker.stop())]);
      await Promise.all(allProxies.map((proxy) => proxy.close()));
      await Promise.all([services.stop(), chains.stop()]);
    },
  };
  return stack;
}

/** Registers an account and returns a client carrying a fresh API key, the key, and the account. */
export async function newAccountClient(http: HttpClient): Promise<{
  api: HttpClient;
  /** The registration's session (signing policies are set only through one). */
  session: HttpClient;
  key: string;
  account: { wallets: { network: string; public_key: string }[] };
}> {
  const session = new HttpClient(http.baseUrl);
  const email = `user-${Date.now()}-${Math.random().toString(16).slice(2)}@example.com`;
  const registered = await session.post('/account/register', {
    email,
    password: 'correct horse battery staple',
  });
  if (registered.status !== 200) throw new Error(`register: ${JSON.stringify(registered.body)}`);
  const key = await session.post('/account/api-keys', { name: 'test' });
  return {
    api: http.with({ 'api-key': key.body.data.key }),
    session,
    key: key.body.data.key,
    account: registered.body.data,
  };
}
