import { Inject, Injectable } from '@nestjs/common';
import { isIP } from 'node:net';
import { AppError } from '@app/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import {
  assertPublicAddresses,
  RefusedAddressError,
  refusedAddressKind,
  resolveAll,
} from './webhook-address-policy';

const MAX_URL_LENGTH = 2_000;

/**
 * Which URLs may receive webhooks. Outside the `local` profile: https only, and only hosts that
 * are (or resolve only to) public addresses; the sender checks the address again when it
 * connects. The `local` profile takes http and loopback receivers (development, tests).
 */
@Injectable()
export class WebhookUrlPolicy {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  get restricted(): boolean {
    return this.config.profile !== 'local';
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
    if (!this.restricted) return url.toString();
    if (url.protocol !== 'https:') throw AppError.badRequest('url must use https.');
    const host = hostOf(url);
    if (isIP(host)) {
      const kind = refusedAddressKind(host);
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
      assertPublicAddresses(host, addresses);
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
