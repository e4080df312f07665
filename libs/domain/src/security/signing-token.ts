import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { Pkcs11Token } from '@app/chains';
import { APP_CONFIG, type AppConfig } from '@app/config';

/** One token a process (a PKCS#11 module is initialized once), shared by the modules using it. */
let shared: { token: Pkcs11Token; users: number } | undefined;

/**
 * The PKCS#11 token of SIGNER_BACKEND=pkcs11, opened (and logged in) when the process starts, so
 * that a wrong module, label or PIN stops it there and not at its first signature; closed on
 * shutdown. With `local` there is none.
 */
@Injectable()
export class SigningToken implements OnModuleInit, OnApplicationShutdown {
  private opened?: Pkcs11Token;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  onModuleInit(): void {
    if (this.config.signer.backend !== 'pkcs11' || this.opened) return;
    shared ??= { token: Pkcs11Token.open(this.config.signer.pkcs11), users: 0 };
    shared.users += 1;
    this.opened = shared.token;
  }

  /** The token; throws with `local` (a caller that asks has a wallet the token holds). */
  get token(): Pkcs11Token {
    if (!this.opened) {
      throw new Error('A wallet key is held by a PKCS#11 token, but SIGNER_BACKEND is not pkcs11');
    }
    return this.opened;
  }

  onApplicationShutdown(): void {
    if (!this.opened || !shared) return;
    this.opened = undefined;
    shared.users -= 1;
    if (shared.users === 0) {
      shared.token.close();
      shared = undefined;
    }
  }
}
