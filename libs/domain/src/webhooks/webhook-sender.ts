import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { boundedText } from '@app/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import {
  allowedAddressLookup,
  refusedAddressKind,
  webhookTargets,
  type WebhookTargets,
} from './webhook-address-policy';
import { hostOf } from './webhook-url-policy';

/** How much of a receiver's answer is read (for the delivery log); the rest is dropped. */
const RESPONSE_BODY_MAX_BYTES = 4 * 1024;
/** How much of it the delivery log keeps. */
const LOGGED_BODY_MAX = 200;
export const USER_AGENT = 'asset-issuance-engine-webhooks/1';

export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface WebhookResponse {
  /** The receiver's HTTP status, or null when none came (refused, unreachable, timed out). */
  status: number | null;
  /** 2xx only: redirects are not followed, and count as failures. */
  ok: boolean;
  latencyMs: number;
  /** Why it failed, for the delivery log (bounded); null on success. */
  error: string | null;
}

/**
 * Sends one webhook: a POST with a timeout for the whole exchange, no redirects followed, at most
 * a few KB of the answer read. Only to the addresses the profile allows (see WebhookTargets):
 * the address is checked as the socket connects (see allowedAddressLookup), not only when the
 * URL was registered.
 */
@Injectable()
export class WebhookSender implements OnApplicationShutdown {
  private readonly httpAgent = new HttpAgent({ keepAlive: true });
  private readonly httpsAgent = new HttpsAgent({ keepAlive: true });
  private readonly targets: WebhookTargets;
  private readonly lookup: ReturnType<typeof allowedAddressLookup>;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    this.targets = webhookTargets(config.profile);
    this.lookup = allowedAddressLookup(this.targets);
  }

  async send(webhook: WebhookRequest): Promise<WebhookResponse> {
    const started = performance.now();
    const failed = (error: string, status: number | null = null): WebhookResponse => ({
      status,
      ok: false,
      latencyMs: Math.round(performance.now() - started),
      error: boundedText(error, 500),
    });
    const url = new URL(webhook.url);
    if (url.protocol !== 'https:' && !this.targets.httpAllowed) {
      return failed('refused: the URL is not https');
    }
    // An address literal is connected to without a lookup: it is checked here instead.
    const host = hostOf(url);
    const kind = isIP(host) ? refusedAddressKind(host, this.targets) : null;
    if (kind) return failed(`refused: ${host} is ${kind} address`);
    try {
      const response = await this.post(url, webhook);
      const latencyMs = Math.round(performance.now() - started);
      const status = response.status;
      if (status >= 200 && status < 300) return { status, ok: true, latencyMs, error: null };
      const said = response.body.trim() ? `: ${clean(response.body)}` : '';
      const redirect = status >= 300 && status < 400 ? ' (redirects are not followed)' : '';
      return { ...failed(`HTTP ${status}${redirect}${said}`, status), latencyMs };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return failed(message.startsWith('refused') ? message : `request failed: ${message}`);
    }
  }

  private post(url: URL, webhook: WebhookRequest): Promise<{ status: number; body: string }> {
    const https = url.protocol === 'https:';
    const timeoutMs = this.config.webhooks.timeoutMs;
    return new Promise((resolve, reject) => {
      const request = (https ? httpsRequest : httpRequest)(url, {
        method: 'POST',
        agent: https ? this.httpsAgent : this.httpAgent,
        headers: {
          ...webhook.headers,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(webhook.body),
          'user-agent': USER_AGENT,
        },
        lookup: this.lookup,
      });
      const timer = setTimeout(
        () => request.destroy(new Error(`timed out after ${timeoutMs} ms`)),
        timeoutMs,
      );
      request.on('error', (error) => {
        clearTimeout(timer);
        const refused = (error as { code?: string }).code === 'WEBHOOK_ADDRESS_REFUSED';
        reject(refused ? new Error(`refused: ${error.message}`) : error);
      });
      request.on('response', (response: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const done = (): void => {
          clearTimeout(timer);
          resolve({
            status: response.statusCode ?? 0,
            body: Buffer.concat(chunks).toString('utf8'),
          });
        };
        response.on('data', (chunk: Buffer) => {
          if (size >= RESPONSE_BODY_MAX_BYTES) return;
          chunks.push(chunk.subarray(0, RESPONSE_BODY_MAX_BYTES - size));
          size += chunk.length;
          if (size >= RESPONSE_BODY_MAX_BYTES) {
            // Enough read: the rest is not waited for (the socket is not reused).
            response.destroy();
            done();
          }
        });
        response.on('end', done);
        response.on('error', (error) => {
          clearTimeout(timer);
          reject(error);
        });
      });
      request.end(webhook.body);
    });
  }

  onApplicationShutdown(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }
}

/** A receiver's answer as the log keeps it: short, one line, no NUL (Postgres text refuses it). */
function clean(body: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are what is removed
  return boundedText(body.replace(/[\u0000-\u001f]+/g, ' ').trim(), LOGGED_BODY_MAX);
}
