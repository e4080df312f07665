import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findFreePort, waitUntil } from '../net.util';
import { postgresBinDir, postgresIds } from './postgres-binaries';
import { requireTools } from './required-tools';

/**
 * Postgres as production runs it (docs/deployment.md#postgres): a primary and a synchronous
 * streaming standby managed by Patroni, their leader lock in etcd, and HAProxy as the one
 * endpoint, routing to whichever node Patroni's REST API calls primary (`GET /primary`).
 */
export interface PostgresHa {
  /** The endpoint the service uses: `postgres://postgres@127.0.0.1:<haproxy port>/postgres`. */
  readonly url: string;
  /** The name of the node that is primary now, by Patroni's REST API. */
  primary(): Promise<string | null>;
  /**
   * SIGKILLs the primary's Patroni and Postgres (a node dying) and waits until the other node is
   * promoted and the endpoint reaches it; returns the promoted node's name.
   */
  killPrimary(): Promise<string>;
  /** What each process printed (for a failed test's message). */
  output(): string;
  stop(): Promise<void>;
}

/** The leader key's TTL (Patroni's default is 30 s): a dead primary's lock lapses within it. */
const LEADER_TTL_S = 8;
/** HAProxy's health checks of each node (`GET /primary`), two failed in a row marking it down. */
const CHECK_INTERVAL_MS = 300;

interface Node {
  name: string;
  pgPort: number;
  restPort: number;
  dir: string;
  process?: ChildProcess;
}

export async function startPostgresHa(): Promise<PostgresHa> {
  requireTools(
    'A Patroni pair',
    ['patroni', 'etcd', 'haproxy'],
    ['patroni', 'python3-etcd', 'etcd-server', 'haproxy'],
  );
  const root = mkdtempSync(join(tmpdir(), 'ais-pg-ha-'));
  const asRoot = process.getuid?.() === 0;
  const [postgresUser, postgresGroup] = asRoot ? postgresIds() : [0, 0];
  const owned = (path: string) => {
    mkdirSync(path, { recursive: true, mode: 0o700 });
    if (asRoot) chownSync(path, postgresUser, postgresGroup);
    return path;
  };
  owned(root);
  const logs: string[] = [];
  const children: ChildProcess[] = [];
  const launch = (name: string, command: string, args: string[], asPostgres: boolean) => {
    const child = spawn(command, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      // Postgres refuses to run as root: as root, Patroni runs as the postgres user.
      ...(asPostgres && asRoot ? { uid: postgresUser, gid: postgresGroup } : {}),
      env: { ...process.env, HOME: root },
    });
    const record = (chunk: Buffer) => logs.push(`[${name}] ${chunk.toString()}`);
    child.stdout?.on('data', record);
    child.stderr?.on('data', record);
    children.push(child);
    return child;
  };

  const [etcdClient, etcdPeer, haproxyPort] = [
    await findFreePort('127.0.0.1'),
    await findFreePort('127.0.0.1'),
    await findFreePort('127.0.0.1'),
  ];
  launch(
    'etcd',
    'etcd',
    [
      '--name=ais-ha',
      `--data-dir=${join(root, 'etcd')}`,
      `--listen-client-urls=http://127.0.0.1:${etcdClient}`,
      `--advertise-client-urls=http://127.0.0.1:${etcdClient}`,
      `--listen-peer-urls=http://127.0.0.1:${etcdPeer}`,
      `--initial-advertise-peer-urls=http://127.0.0.1:${etcdPeer}`,
      `--initial-cluster=ais-ha=http://127.0.0.1:${etcdPeer}`,
      '--log-level=error',
    ],
    false,
  );
  await until(() => fetchStatus(`http://127.0.0.1:${etcdClient}/health`), 'etcd', 15_000);

  const nodes: Node[] = [];
  for (const name of ['pg-a', 'pg-b']) {
    nodes.push({
      name,
      pgPort: await findFreePort('127.0.0.1'),
      restPort: await findFreePort('127.0.0.1'),
      dir: owned(join(root, name)),
    });
  }
  const startNode = (node: Node) => {
    const config = join(node.dir, 'patroni.yml');
    writeFileSync(config, patroniConfig(node, etcdClient));
    if (asRoot) chownSync(config, postgresUser, postgresGroup);
    node.process = launch(node.name, '/usr/bin/patroni', [config], true);
  };
  // The first bootstraps the cluster; the second clones it from the first (pg_basebackup).
  startNode(nodes[0]);
  await until(() => isPrimary(nodes[0]), 'the first Patroni node to lead', 60_000);
  startNode(nodes[1]);
  await until(() => isSyncStandby(nodes[1]), 'the second node to be a synchronous standby', 60_000);

  const haproxyConfig = join(root, 'haproxy.cfg');
  writeFileSync(haproxyConfig, haproxyConfigFor(haproxyPort, nodes));
  launch('haproxy', 'haproxy', ['-db', '-f', haproxyConfig], false);
  const url = `postgres://postgres@127.0.0.1:${haproxyPort}/postgres`;
  // HAProxy starts with every server up until its checks say otherwise: a connection made then
  // may reach the standby, and be cut when its check fails. Ready once the checks have run
  // (fall x inter) and several connections in a row (round robin) all reach the primary.
  await new Promise((resolve) => setTimeout(resolve, 2 * CHECK_INTERVAL_MS + 200));
  await until(() => reachesPrimaryOnly(url), 'the HAProxy endpoint to reach the primary', 15_000);

  const primary = async () => {
    for (const node of nodes) if (await isPrimary(node)) return node.name;
    return null;
  };
  return {
    url,
    primary,
    killPrimary: async () => {
      const current = await primary();
      const dying = nodes.find((node) => node.name === current);
      if (!dying) throw new Error('no primary to kill');
      dying.process?.kill('SIGKILL');
      // Its Postgres outlives Patroni: kill it too, as the machine going away would.
      execFileSync('pkill', ['-KILL', '-f', `${dying.dir}/data`], { stdio: 'ignore' });
      const survivor = nodes.find((node) => node !== dying)!;
      await until(
        async () => (await isPrimary(survivor)) && (await reachable(url)),
        `${survivor.name} to be promoted`,
        (LEADER_TTL_S + 30) * 1_000,
      );
      return survivor.name;
    },
    output: () => logs.join(''),
    stop: async () => {
      for (const child of children.reverse()) child.kill('SIGTERM');
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
      for (const node of nodes) {
        try {
          execFileSync('pkill', ['-KILL', '-f', `${node.dir}/data`], { stdio: 'ignore' });
        } catch {
          // none left
        }
      }
      rmSync(root, { recursive: true, force: true });
    },
  };
}

function patroniConfig(node: Node, etcdPort: number): string {
  return `scope: ais-ha
name: ${node.name}
log:
  level: WARNING
restapi:
  listen: 127.0.0.1:${node.restPort}
  connect_address: 127.0.0.1:${node.restPort}
etcd3:
  hosts: 127.0.0.1:${etcdPort}
bootstrap:
  dcs:
    ttl: ${LEADER_TTL_S}
    loop_wait: 1
    retry_timeout: 3
    maximum_lag_on_failover: 0
    synchronous_mode: true
    postgresql:
      use_pg_rewind: false
      parameters:
        max_connections: 200
        wal_level: replica
        hot_standby: 'on'
        max_wal_senders: 10
        max_replication_slots: 10
  initdb:
    - encoding: UTF8
    - auth: trust
  pg_hba:
    - local all all trust
    - host replication replicator 127.0.0.1/32 trust
    - host all all 127.0.0.1/32 trust
postgresql:
  listen: 127.0.0.1:${node.pgPort}
  connect_address: 127.0.0.1:${node.pgPort}
  data_dir: ${node.dir}/data
  bin_dir: ${postgresBinDir()}
  pgpass: ${node.dir}/pgpass
  authentication:
    superuser:
      username: postgres
    replication:
      username: replicator
  parameters:
    unix_socket_directories: '${node.dir}'
`;
}

function haproxyConfigFor(port: number, nodes: Node[]): string {
  return `global
  maxconn 1000
defaults
  mode tcp
  timeout connect 2s
  timeout client 30m
  timeout server 30m
  timeout check 1s
listen postgres
  bind 127.0.0.1:${port}
  option httpchk GET /primary
  http-check expect status 200
  default-server inter ${CHECK_INTERVAL_MS}ms fall 2 rise 1 on-marked-down shutdown-sessions
${nodes.map((node) => `  server ${node.name} 127.0.0.1:${node.pgPort} check port ${node.restPort}`).join('\n')}
`;
}

async function fetchStatus(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(1_000) });
    return response.status === 200;
  } catch {
    return false;
  }
}

function isPrimary(node: Node): Promise<boolean> {
  return fetchStatus(`http://127.0.0.1:${node.restPort}/primary`);
}

function isSyncStandby(node: Node): Promise<boolean> {
  return fetchStatus(`http://127.0.0.1:${node.restPort}/sync`);
}

async function reachable(url: string): Promise<boolean> {
  const { Client } = await import('pg');
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 1_000 });
  try {
    await client.connect();
    const { rows } = await client.query<{ standby: boolean }>(
      'SELECT pg_is_in_recovery() AS standby',
    );
    return rows[0]?.standby === false;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function reachesPrimaryOnly(url: string): Promise<boolean> {
  for (let i = 0; i < 4; i++) if (!(await reachable(url))) return false;
  return true;
}

/** Polls `probe` every 200 ms (each an HTTP request or a connection) until it holds. */
function until(probe: () => Promise<boolean>, what: string, timeoutMs: number): Promise<void> {
  return waitUntil(probe, timeoutMs, { intervalMs: 200, what });
}
