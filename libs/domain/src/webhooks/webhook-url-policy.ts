import { Inject, Injectable } from '@nestjs/common';
import { isIP } from 'node:net';
import { AppError } from '@app/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import {
  assertAllowedAddresses,
  RefusedAddressError,
  refusedAddressKind,
  resolveAll,
  webhookTargets,
  type WebhookTargets,
} from './webhook-address-policy';

const MAX_URL_LENGTH = 2_000;

/**
 * Which URLs may receive webhooks: https only, and only hosts that are (or resolve only to)
 * public addresses; the sender checks the address again when it connects. The `local` profile
 * also takes http and loopback receivers (development, tests), nothing else non-public.
 * What is stored is the URL as WHATWG parsing writes it: `http://2130706433/` and
 * `http://0177.0.0.1/` are stored, and judged, as `http://127.0.0.1/`.
 */
@Injectable()
export class WebhookUrlPolicy {
  private readonly targets: WebhookTargets;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.targets = webhookTargets(config.profile);
  }

  /** The URL as stored, or a 400 naming what is wrong with it. */
  async check(input: string): Promise<string> {
    if (input.length > MAX_URL_LENGTH) {
      throw AppError.badRequest(`url must be at most ${MAX_URL_LENGTH} characters.`);
    }
    let url: URL;
    try {
      url = new URL(input);
    } catch {
      throw AppError.badRequest('url must be an absolute http(s) URL.');
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      throw AppError.badRequest('url must be an http(s) URL.');
    }
    if (url.username || url.password) {
      throw AppError.badRequest('url must not carry credentials.');
    }
    if (url.protocol !== 'https:' && !this.targets.httpAllowed) {
      throw AppError.badRequest('url must use https.');
    }
    const host = hostOf(url);
    if (isIP(host)) {
      const kind = refusedAddressKind(host, this.targets);
      if (kind) throw AppError.badRequest(`url must not point at ${kind} address (${host}).`);
      return url.toString();
    }
    let addresses;
    try {
      addresses = await resolveAll(host);
    } catch {
      throw AppError.badRequest(`url's host ${host} does not resolve.`);
    }
    try {
      assertAllowedAddresses(host, addresses, this.targets);
    } catch (error) {
      if (error instanceof RefusedAddressError) {
        throw AppError.badRequest(`url must not point at a non-public address: ${error.message}.`);
      }
      throw error;
    }
    return url.toString();
  }
}

/** The URL's host as an address or a name: IPv6 literals without their brackets. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}
