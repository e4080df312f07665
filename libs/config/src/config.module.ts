import { Global, Module, type DynamicModule } from '@nestjs/common';
import type { AppConfig } from './app-config';
import { loadConfig } from './load-config';

/** Injection token of the validated AppConfig. */
export const APP_CONFIG = Symbol('APP_CONFIG');

@Global()
@Module({})
export class ConfigModule {
  /** Uses the given config (tests), or validates the environment at boot. */
  static forRoot(config?: AppConfig): DynamicModule {
    return {
      module: ConfigModule,
      providers: [{ provide: APP_CONFIG, useFactory: () => config ?? loadConfig(process.env) }],
      exports: [APP_CONFIG],
    };
  }
}
