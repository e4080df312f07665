import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { SESSION_COOKIE } from '../../auth/session-cookie';

/** OpenAPI at /docs (UI) and /docs/json, generated from the DTOs and the envelope decorators. */
export function setUpOpenApi(app: INestApplication): void {
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Asset Issuance API')
      .setDescription(
        'Wallets, fungible tokens and NFTs on Solana and EVM networks. Every response uses the ' +
          'envelope `{ success, data, message }`; errors are `{ success: false, error, message, timestamp }`.',
      )
      .setVersion('0.1.0')
      .addApiKey({ type: 'apiKey', in: 'header', name: 'api-key' }, 'api-key')
      .addCookieAuth(SESSION_COOKIE)
      .build(),
  );
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'docs/json' });
}
