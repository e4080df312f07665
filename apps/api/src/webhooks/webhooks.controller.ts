import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiCookieAuth, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { AppError, ok, type SuccessEnvelope } from '@app/common';
import type { WebhookReplaySelector } from '@app/database';
import { WebhookEndpoints } from '@app/domain';
import { AccountId, ApiKeyOrSessionAuth } from '../auth/auth.decorators';
import { SESSION_SCHEME } from '../http/docs/openapi';
import { arrayOf, strictObject, text } from '../http/docs/schema';
import { ApiEnvelope } from '../http/docs/api-envelope.decorator';
import {
  CreateWebhookDto,
  ReplayWebhookDto,
  RotateWebhookSecretDto,
  UpdateWebhookDto,
  WebhookDeliveriesQuery,
} from './dto/webhook.dto';
import {
  presentIssuedWebhookSecret,
  presentWebhookDeliveryPage,
  presentWebhookEndpoint,
  presentWebhookReplay,
  type WebhookDeliveryPageView,
  type WebhookEndpointView,
  type WebhookEndpointWithSecret,
  type WebhookReplayView,
} from './webhook.presenter';
import {
  WEBHOOK_DELIVERY_PAGE,
  WEBHOOK_ENDPOINT_VIEW,
  WEBHOOK_ENDPOINT_WITH_SECRET,
  WEBHOOK_REPLAY_VIEW,
} from './webhook.schema';

const DEFAULT_GRACE_SECONDS = 86_400;

/** The account's webhook endpoints, their delivery log and replays (docs/events-and-webhooks.md, "Webhooks"). */
@ApiTags('webhooks')
@ApiSecurity('api-key')
@ApiCookieAuth(SESSION_SCHEME)
@ApiKeyOrSessionAuth()
@Controller('webhooks')
export class WebhooksController {
  constructor(private readonly webhooks: WebhookEndpoints) {}

  @Post()
  @HttpCode(200)
  @ApiEnvelope(
    'The new endpoint; `secret` is shown only in this response',
    WEBHOOK_ENDPOINT_WITH_SECRET,
    [400, 401, 403, 409],
  )
  async create(
    @AccountId() accountId: string,
    @Body() body: CreateWebhookDto,
  ): Promise<SuccessEnvelope<WebhookEndpointWithSecret>> {
    const created = await this.webhooks.create(accountId, {
      url: body.url,
      eventTypes: body.event_types,
      description: body.description,
      enabled: body.enabled,
    });
    return ok(
      presentIssuedWebhookSecret(created),
      'Webhook endpoint created. Store its secret now: it is not shown again.',
    );
  }

  @Get()
  @ApiEnvelope(
    'The account webhook endpoints, oldest first, without their secrets',
    strictObject({ webhooks: arrayOf(WEBHOOK_ENDPOINT_VIEW) }),
    [401],
  )
  async list(
    @AccountId() accountId: string,
  ): Promise<SuccessEnvelope<{ webhooks: WebhookEndpointView[] }>> {
    const endpoints = await this.webhooks.list(accountId);
    return ok({ webhooks: endpoints.map((e) => presentWebhookEndpoint(e)) }, 'Webhook endpoints.');
  }

  @Get(':id')
  @ApiEnvelope('One webhook endpoint', WEBHOOK_ENDPOINT_VIEW, [401, 404])
  async get(
    @AccountId() accountId: string,
    @Param('id') id: string,
  ): Promise<SuccessEnvelope<WebhookEndpointView>> {
    return ok(presentWebhookEndpoint(await this.webhooks.get(accountId, id)), 'Webhook endpoint.');
  }

  @Patch(':id')
  @ApiEnvelope('The endpoint as changed', WEBHOOK_ENDPOINT_VIEW, [400, 401, 403, 404])
  async update(
    @AccountId() accountId: string,
    @Param('id') id: string,
    @Body() body: UpdateWebhookDto,
  ): Promise<SuccessEnvelope<WebhookEndpointView>> {
    const endpoint = await this.webhooks.update(accountId, id, {
      url: body.url,
      eventTypes: body.event_types,
      description: body.description,
      enabled: body.enabled,
    });
    return ok(presentWebhookEndpoint(endpoint), 'Webhook endpoint updated.');
  }

  @Delete(':id')
  @ApiEnvelope(
    'The endpoint and its delivery log are deleted',
    strictObject({ id: text, deleted: { type: 'boolean', enum: [true] } }),
    [401, 403, 404],
  )
  async delete(
    @AccountId() accountId: string,
    @Param('id') id: string,
  ): Promise<SuccessEnvelope<{ id: string; deleted: true }>> {
    await this.webhooks.delete(accountId, id);
    return ok({ id, deleted: true }, 'Webhook endpoint deleted.');
  }

  @Post(':id/rotate-secret')
  @HttpCode(200)
  @ApiEnvelope(
    'A new secret, shown only here; the old one signs too until the grace ends',
    WEBHOOK_ENDPOINT_WITH_SECRET,
    [400, 401, 403, 404],
  )
  async rotateSecret(
    @AccountId() accountId: string,
    @Param('id') id: string,
    @Body() body: RotateWebhookSecretDto,
  ): Promise<SuccessEnvelope<WebhookEndpointWithSecret>> {
    const grace = body.grace_period_seconds ?? DEFAULT_GRACE_SECONDS;
    return ok(
      presentIssuedWebhookSecret(await this.webhooks.rotateSecret(accountId, id, grace)),
      'Webhook secret rotated. Store the new secret now: it is not shown again.',
    );
  }

  @Post(':id/ping')
  @HttpCode(200)
  @ApiEnvelope(
    'A `ping` event is on its way; its delivery shows in the delivery log',
    strictObject({ delivery_id: text }),
    [401, 403, 404, 409],
  )
  async ping(
    @AccountId() accountId: string,
    @Param('id') id: string,
  ): Promise<SuccessEnvelope<{ delivery_id: string }>> {
    return ok({ delivery_id: await this.webhooks.ping(accountId, id) }, 'Ping queued.');
  }

  @Get(':id/deliveries')
  @ApiEnvelope(
    'The delivery log, newest first, with each attempt',
    WEBHOOK_DELIVERY_PAGE,
    [400, 401, 404],
  )
  async deliveries(
    @AccountId() accountId: string,
    @Param('id') id: string,
    @Query() query: WebhookDeliveriesQuery,
  ): Promise<SuccessEnvelope<WebhookDeliveryPageView>> {
    const page = await this.webhooks.listDeliveries(accountId, id, {
      status: query.status,
      limit: query.limit ?? 20,
      cursor: query.cursor,
    });
    return ok(presentWebhookDeliveryPage(page), 'Webhook deliveries.');
  }

  @Post(':id/replay')
  @HttpCode(200)
  @ApiEnvelope(
    'New pending deliveries of exactly the events selected',
    WEBHOOK_REPLAY_VIEW,
    [400, 401, 403, 404, 409],
  )
  async replay(
    @AccountId() accountId: string,
    @Param('id') id: string,
    @Body() body: ReplayWebhookDto,
  ): Promise<SuccessEnvelope<WebhookReplayView>> {
    const replay = await this.webhooks.replay(accountId, id, replaySelector(body));
    return ok(presentWebhookReplay(replay), 'Replay queued.');
  }
}

function replaySelector(body: ReplayWebhookDto): WebhookReplaySelector {
  const given = [body.delivery_id, body.from_sequence, body.since].filter((v) => v !== undefined);
  if (given.length !== 1) {
    throw AppError.badRequest('Give exactly one of delivery_id, from_sequence or since.');
  }
  if (body.delivery_id !== undefined) return { deliveryId: body.delivery_id };
  if (body.from_sequence !== undefined) return { fromSequence: BigInt(body.from_sequence) };
  return { since: new Date(body.since!) };
}
