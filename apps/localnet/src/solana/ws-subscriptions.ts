import type { IncomingMessage, Server } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import {
  encodeAccount,
  parseAccountEncoding,
  type AccountEncoding,
  type MintDecimals,
  type UiAccount,
} from './account.encoder';
import { parseFilters } from './methods/account.methods';
import { mintDecimalsFrom } from './methods/method.util';
import type { Ledger } from './ledger';
import type { AccountState, TransactionRecord } from './ledger.types';
import { RpcError, RpcErrorCode } from './rpc.errors';
import { asPubkey, configParam, signatureParam } from './rpc-params.util';
import { SYSTEM_PROGRAM } from './wire-transaction.decoder';

const CLOSE_GRACE_MS = 500;

type Kind = 'signature' | 'account' | 'program' | 'slot' | 'root' | 'logs';

interface Subscription {
  id: number;
  kind: Kind;
  socket: WebSocket;
  /** Signature, account or program address; for logs, the mentioned address or '' for all. */
  key: string;
  encoding: AccountEncoding;
  filters: ((data: Uint8Array) => boolean)[];
}

const CLOSED_ACCOUNT: AccountState = {
  lamports: 0n,
  owner: SYSTEM_PROGRAM,
  executable: false,
  rentEpoch: 0n,
  data: new Uint8Array(0),
};

/** The validator's PubSub WebSocket: signature, account, program, logs, slot and root subscriptions. */
export class SubscriptionServer {
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });
  private readonly byId = new Map<number, Subscription>();
  private readonly byKey = new Map<string, Set<Subscription>>();
  private readonly countByKind: Record<Kind, number> = {
    signature: 0,
    account: 0,
    program: 0,
    slot: 0,
    root: 0,
    logs: 0,
  };
  private readonly unsubscribeLedger: () => void;
  private nextId = 0;
  private ownServer: Server | undefined;

  constructor(private readonly ledger: Ledger) {
    this.wss.on('connection', (socket) => this.accept(socket));
    this.unsubscribeLedger = ledger.addListener({
      onSlot: (slot) => this.publishSlot(slot),
      onTransaction: (record, writableKeys) => this.publishTransaction(record, writableKeys),
    });
  }

  /** Serves WebSocket upgrades arriving on `server` (e.g. the HTTP RPC port). */
  attach(server: Server): void {
    server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
      this.wss.handleUpgrade(req, socket, head, (ws) => this.wss.emit('connection', ws, req));
    });
  }

  async listen(port: number, host: string): Promise<number> {
    const server = createServer((_req, res) => res.writeHead(426).end());
    this.attach(server);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    this.ownServer = server;
    return (server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    this.unsubscribeLedger();
    // A normal closure (1000) tells web3.js's client not to reconnect; terminate stragglers.
    const closing = [...this.wss.clients].map(
      (client) =>
        new Promise<void>((resolve) => {
          const timer = setTimeout(() => client.terminate(), CLOSE_GRACE_MS);
          client.once('close', () => {
            clearTimeout(timer);
            resolve();
          });
          client.close(1000, 'server stopping');
        }),
    );
    await Promise.all(closing);
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
    const server = this.ownServer;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private accept(socket: WebSocket): void {
    const owned = new Set<Subscription>();
    socket.on('message', (raw: RawData) => {
      this.handleMessage(socket, owned, rawText(raw));
    });
    socket.on('close', () => {
      for (const sub of owned) this.remove(sub);
      owned.clear();
    });
    socket.on('error', () => socket.terminate());
  }

  private handleMessage(socket: WebSocket, owned: Set<Subscription>, text: string): void {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      send(socket, {
        jsonrpc: '2.0',
        error: { code: RpcErrorCode.parseError, message: 'Parse error' },
        id: null,
      });
      return;
    }
    const requests = Array.isArray(message) ? message : [message];
    for (const request of requests) {
      const { method, params, id } = (request ?? {}) as {
        method?: unknown;
        params?: unknown;
        id?: unknown;
      };
      // Notifications (no id), such as web3.js's keep-alive "ping", get no answer.
      if (id === undefined) continue;
      try {
        if (typeof method !== 'string')
          throw new RpcError(RpcErrorCode.invalidRequest, 'Invalid request');
        const args = Array.isArray(params) ? params : [];
        const result = this.call(socket, owned, method, args);
        send(socket, { jsonrpc: '2.0', result: result.value, id });
        result.after?.();
      } catch (err) {
        const error =
          err instanceof RpcError
            ? err
            : new RpcError(RpcErrorCode.internalError, (err as Error).message);
        send(socket, { jsonrpc: '2.0', error: error.toJSON(), id });
      }
    }
  }

  private call(
    socket: WebSocket,
    owned: Set<Subscription>,
    method: string,
    params: unknown[],
  ): { value: unknown; after?: () => void } {
    const subscribe = (
      kind: Kind,
      key: string,
      encoding: AccountEncoding = 'base64',
      filters: Subscription['filters'] = [],
    ) => {
      const sub: Subscription = { id: this.nextId++, kind, socket, key, encoding, filters };
      this.byId.set(sub.id, sub);
      this.countByKind[kind]++;
      const indexKey = `${kind}:${key}`;
      let set = this.byKey.get(indexKey);
      if (!set) this.byKey.set(indexKey, (set = new Set()));
      set.add(sub);
      owned.add(sub);
      return sub;
    };
    const unsubscribe = (kind: Kind) => {
      const sub = this.byId.get(params[0] as number);
      if (!sub || sub.kind !== kind || sub.socket !== socket) {
        throw RpcError.invalidParams('Invalid subscription id.');
      }
      this.remove(sub);
      owned.delete(sub);
      return { value: true };
    };
    const config = (index: number) => configParam(params, index, this.ledger.slot);

    switch (method) {
      case 'signatureSubscribe': {
        const signature = signatureParam(params[0]);
        config(1);
        const sub = subscribe('signature', signature);
        const record = this.ledger.getTransaction(signature);
        // Already executed: answer at once (the subscription is one-shot, as on a validator).
        return {
          value: sub.id,
          after: record ? () => this.notifySignature(sub, record) : undefined,
        };
      }
      case 'accountSubscribe': {
        const address = asPubkey(params[0]);
        const encoding = parseAccountEncoding(config(1).encoding, 'binary');
        return { value: subscribe('account', address, encoding).id };
      }
      case 'programSubscribe': {
        const programId = asPubkey(params[0]);
        const cfg = config(1);
        return {
          value: subscribe(
            'program',
            programId,
            parseAccountEncoding(cfg.encoding, 'binary'),
            parseFilters(cfg.filters),
          ).id,
        };
      }
      case 'logsSubscribe': {
        const filter = params[0];
        let key = '';
        if (filter !== 'all' && filter !== 'allWithVotes') {
          const mentions = (filter as { mentions?: unknown } | null)?.mentions;
          if (!Array.isArray(mentions) || mentions.length !== 1) {
            throw RpcError.invalidParams('Invalid Request: Only 1 address supported');
          }
          key = asPubkey(mentions[0]);
        }
        config(1);
        return { value: subscribe('logs', key).id };
      }
      case 'slotSubscribe':
        return { value: subscribe('slot', '').id };
      case 'rootSubscribe':
        return { value: subscribe('root', '').id };
      case 'signatureUnsubscribe':
        return unsubscribe('signature');
      case 'accountUnsubscribe':
        return unsubscribe('account');
      case 'programUnsubscribe':
        return unsubscribe('program');
      case 'logsUnsubscribe':
        return unsubscribe('logs');
      case 'slotUnsubscribe':
        return unsubscribe('slot');
      case 'rootUnsubscribe':
        return unsubscribe('root');
      default:
        throw new RpcError(RpcErrorCode.methodNotFound, 'Method not found');
    }
  }

  private remove(sub: Subscription): void {
    if (!this.byId.delete(sub.id)) return;
    this.countByKind[sub.kind]--;
    const indexKey = `${sub.kind}:${sub.key}`;
    const set = this.byKey.get(indexKey);
    set?.delete(sub);
    if (set?.size === 0) this.byKey.delete(indexKey);
  }

  private subscribers(kind: Kind, key: string): Set<Subscription> | undefined {
    return this.byKey.get(`${kind}:${key}`);
  }

  private publishSlot(slot: number): void {
    for (const sub of this.subscribers('slot', '') ?? [])
      notify(sub, 'slotNotification', { parent: slot - 1, root: slot, slot });
    for (const sub of this.subscribers('root', '') ?? []) notify(sub, 'rootNotification', slot);
  }

  private publishTransaction(record: TransactionRecord, writableKeys: string[]): void {
    for (const sub of this.subscribers('signature', record.signature) ?? [])
      this.notifySignature(sub, record);
    const context = { slot: record.slot };
    const watchesAccounts = this.countByKind.account > 0 || this.countByKind.program > 0;
    const encode = subscriptionEncoder(mintDecimalsFrom(this.ledger));
    for (const address of watchesAccounts ? writableKeys : []) {
      const accountSubs = this.subscribers('account', address);
      const account = this.ledger.getAccount(address);
      for (const sub of accountSubs ?? []) {
        notify(sub, 'accountNotification', {
          context,
          value: encode(account ?? CLOSED_ACCOUNT, sub),
        });
      }
      if (!account) continue;
      for (const sub of this.subscribers('program', account.owner) ?? []) {
        if (!sub.filters.every((matches) => matches(account.data))) continue;
        const value = { pubkey: address, account: encode(account, sub) };
        notify(sub, 'programNotification', { context, value });
      }
    }
    if (this.countByKind.logs === 0) return;
    const logsSubs = [
      ...(this.subscribers('logs', '') ?? []),
      ...record.accountKeys.flatMap((key) => [...(this.subscribers('logs', key) ?? [])]),
    ];
    if (logsSubs.length === 0) return;
    const value = { signature: record.signature, err: record.err, logs: record.details().logs };
    for (const sub of logsSubs) notify(sub, 'logsNotification', { context, value });
  }

  private notifySignature(sub: Subscription, record: TransactionRecord): void {
    if (!this.byId.has(sub.id)) return;
    notify(sub, 'signatureNotification', {
      context: { slot: record.slot },
      value: { err: record.err },
    });
    this.remove(sub);
  }
}

/** Like the RPC's encoding, except that data too long for base58 goes out as base64. */
function subscriptionEncoder(
  mintDecimals: MintDecimals,
): (account: AccountState, sub: Subscription) => UiAccount {
  return (account, sub) => {
    const tooLongForBase58 =
      account.data.length > 128 && (sub.encoding === 'binary' || sub.encoding === 'base58');
    return encodeAccount(account, tooLongForBase58 ? 'base64' : sub.encoding, { mintDecimals });
  };
}

function notify(sub: Subscription, method: string, result: unknown): void {
  send(sub.socket, { jsonrpc: '2.0', method, params: { result, subscription: sub.id } });
}

function send(socket: WebSocket, message: unknown): void {
  if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
}

function rawText(raw: RawData): string {
  if (Array.isArray(raw)) return Buffer.concat(raw).toString('utf8');
  return Buffer.from(raw as ArrayBuffer).toString('utf8');
}
