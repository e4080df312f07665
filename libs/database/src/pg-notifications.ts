import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { Client } from 'pg';
import { LogContext } from '@app/common';
import { APP_CONFIG, type AppConfig } from '@app/config';

/**
 * Called with a notification's payload, or with `null` after the listening connection was lost
 * and made again: notifications sent meanwhile are gone, so the listener re-reads Postgres.
 */
export type NotificationListener = (payload: string | null) => void;

const RECONNECT_DELAY_MS = 1_000;

/**
 * Postgres LISTEN for this process: one dedicated connection (not from the pool) shared by every
 * listener, made again after a loss. Notifications are hints to re-read Postgres, never data.
 */
@Injectable()
export class PgNotifications implements OnApplicationShutdown {
  private readonly logger = new Logger(PgNotifications.name);
  private readonly listeners = new Map<string, Set<NotificationListener>>();
  /** The connection listening now, or being made. */
  private client?: Client;
  private connected = false;
  private connecting?: Promise<void>;
  private reconnectTimer?: NodeJS.Timeout;
  private closed = false;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /** Calls `listener` with each notification on `channel`; returns the unsubscribe function. */
  async listen(channel: string, listener: NotificationListener): Promise<() => void> {
    let channelListeners = this.listeners.get(channel);
    if (!channelListeners) {
      channelListeners = new Set();
      this.listeners.set(channel, channelListeners);
      if (this.client && this.connected) {
        await this.client.query(`LISTEN ${quoteIdentifier(channel)}`);
      }
    }
    channelListeners.add(listener);
    this.connecting ??= LogContext.outside(() => this.connect(false));
    await this.connecting.catch(() => undefined);
    return () => channelListeners.delete(listener);
  }

  private async connect(resync: boolean): Promise<void> {
    const client = new Client({
      connectionString: this.config.databaseUrl,
      connectionTimeoutMillis: this.config.databaseConnectTimeoutMs,
      keepAlive: true,
    });
    this.client = client;
    this.connected = false;
    client.on('notification', (message) => this.deliver(message.channel, message.payload ?? ''));
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
      // Set before listening: a channel added from now on is listened to by listen() itself.
      this.connected = true;
      for (const channel of this.listeners.keys()) {
        await client.query(`LISTEN ${quoteIdentifier(channel)}`);
      }
    } catch (error) {
      this.lost(client, error instanceof Error ? error : new Error(String(error)));
      throw error;
    }
    if (resync) for (const channel of this.listeners.keys()) this.deliver(channel, null);
  }

  private deliver(channel: string, payload: string | null): void {
    for (const listener of this.listeners.get(channel) ?? []) listener(payload);
  }

  private lost(client: Client, error?: Error): void {
    // A late event of a connection given up already: the current one is not affected.
    if (this.closed || this.reconnectTimer || client !== this.client) return;
    if (error) this.logger.warn(`Listening connection lost: ${error.message}`);
    this.client = undefined;
    this.connected = false;
    client.removeAllListeners('end');
    void client.end().catch(() => undefined);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      this.connecting = this.connect(true).catch(() => undefined);
    }, RECONNECT_DELAY_MS);
    this.reconnectTimer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    await this.client?.end().catch(() => undefined);
  }
}

function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
