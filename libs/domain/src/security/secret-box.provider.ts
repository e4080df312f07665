import type { Provider } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { SecretBox } from './secret-box';

export const secretBoxProvider: Provider = {
  provide: SecretBox,
  inject: [APP_CONFIG],
  useFactory: (config: AppConfig) => new SecretBox(config.crypto.activeKey, config.crypto.keys),
};
