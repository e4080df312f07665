import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import { Pkcs11Token } from '@app/chains';
import { APP_CONFIG, type AppConfig } from '@app/config';

/**
 * The PKCS#11 token of SIGNER_BACKEND=pkcs11, opened (and logged in) when the process starts, so
 * that a wrong module, label or PIN stops it there and not at its first signature; closed on
 * shutdown. With `local` there is none.
 */
@Injectable()
export class SigningToken implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(SigningToken.name);
  private opened?: Pkcs11Token;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  async onModuleInit(): Promise<void> {
    // One instance a process (the API's IssuanceModule or the worker's ExecutionModule), as a
    // PKCS#11 module is initialized once a process.
    if (this.config.signer.backend === 'pkcs11') {
      const settings = this.config.signer.pkcs11;
      this.opened ??= await Pkcs11Token.open(settings);
      this.logger.log(
        `Managed keys sign in PKCS#11 token "${settings.tokenLabel}" (${settings.module})`,
      );
    }
  }

  /** The token; throws with `local` (a caller that asks has a wallet the token holds). */
  get token(): Pkcs11Token {
    if (!this.opened) {
      throw new Error('A wallet key is held by a PKCS#11 token, but SIGNER_BACKEND is not pkcs11');
    }
    return this.opened;
  }

  onApplicationShutdown(): void {
    this.opened?.close();
    this.opened = undefined;
  }
}
