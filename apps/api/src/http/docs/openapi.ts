import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { SESSION_COOKIE } from '../../auth/session-cookie';
import { errorResponses } from './api-envelope.decorator';
import { namedSchemas } from './schema';

/** The security scheme names the controllers refer to (`@ApiSecurity`, `@ApiCookieAuth`). */
export const API_KEY_SCHEME = 'api-key';
export const SESSION_SCHEME = 'session';

/**
 * The OpenAPI document, from the controllers' decorators, the DTOs and the view schemas. Needs no
 * listening server, database or chain: an app created with `preview: true` is enough.
 */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Asset Issuance API')
      .setDescription(
        'Wallets, fungible tokens and NFTs on Solana and EVM networks. Every response uses the ' +
          'envelope `{ success, data, message }`; errors are `{ success: false, error, message, timestamp }`. ' +
          'Writes answer 200 once confirmed, or 202 with the operation to follow at ' +
          '`GET /operations/{operation_id}`; send `Idempotency-Key` to make a retry safe.',
      )
      .setVersion('0.1.0')
      .addApiKey({ type: 'apiKey', in: 'header', name: 'api-key' }, API_KEY_SCHEME)
      .addCookieAuth(
        SESSION_COOKIE,
        {
          type: 'apiKey',
          in: 'cookie',
          description: 'The dashboard session (POST /account/login)',
        },
        SESSION_SCHEME,
      )
      .build(),
  );
  document.components = {
    ...document.components,
    schemas: { ...document.components?.schemas, ...namedSchemas() },
    responses: { ...document.components?.responses, ...errorResponses() },
  };
  // Nest writes an empty description beside each `$ref`; a reference stands alone.
  const operations = Object.values(document.paths).flatMap(
    (path) => Object.values(path) as { responses?: Record<string, Record<string, unknown>> }[],
  );
  for (const { responses } of operations) {
    for (const response of Object.values(responses ?? {})) {
      if ('$ref' in response) delete response.description;
    }
  }
  return document;
}

/** OpenAPI at /docs (UI) and /docs/json. */
export function setUpOpenApi(app: INestApplication): void {
  SwaggerModule.setup('docs', app, buildOpenApiDocument(app), { jsonDocumentUrl: 'docs/json' });
}
