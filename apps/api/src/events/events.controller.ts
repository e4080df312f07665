import { Controller, Get, Headers, Query, Res } from '@nestjs/common';
import {
  ApiCookieAuth,
  ApiHeader,
  ApiProduces,
  ApiQuery,
  ApiResponse,
  ApiSecurity,
  ApiTags,
} from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import type { FastifyReply } from 'fastify';
import { ok, type SuccessEnvelope } from '@app/common';
import { AccountEventFeed, type AccountEventPage } from '@app/domain';
import { AccountId, ApiKeyOrSessionAuth } from '../auth/auth.decorators';
import { SESSION_SCHEME } from '../http/docs/openapi';
import { ApiEnvelope, ApiErrors } from '../http/docs/api-envelope.decorator';
import { pageLimitQueryUpTo } from '../http/page-limit.query';
import { ACCOUNT_EVENT_PAGE } from './event.schema';
import { IsEventSequence, MAX_EVENT_SEQUENCE, streamStart } from './event-sequence';
import { EventStreams } from './event-streams';

const DEFAULT_PAGE_SIZE = 100;
const MAX_PAGE_SIZE = 1000;

export class EventPageQuery extends pageLimitQueryUpTo(MAX_PAGE_SIZE) {
  /** Events with a greater sequence number: a previous page's `next_after` (default 0). */
  @IsOptional()
  @IsEventSequence()
  after?: string;
}

export class EventStreamQuery {
  /** Where to start when no Last-Event-ID is sent (default: only events from now on). */
  @IsOptional()
  @IsEventSequence()
  after?: string;
}

const AFTER_DOC = {
  name: 'after',
  required: false,
  schema: { type: 'integer', minimum: 0, maximum: MAX_EVENT_SEQUENCE },
} as const;

/**
 * The account's event feed (contract: api-key or session; the stream is not in the envelope):
 * a page to catch up with, and a live Server-Sent Events stream to follow.
 */
@ApiTags('events')
@ApiSecurity('api-key')
@ApiCookieAuth(SESSION_SCHEME)
@ApiKeyOrSessionAuth()
@Controller('events')
export class EventsController {
  constructor(
    private readonly feed: AccountEventFeed,
    private readonly streams: EventStreams,
  ) {}

  @Get()
  @ApiQuery({
    ...AFTER_DOC,
    description:
      "Events with a greater sequence number: the previous page's `next_after` (default 0, the first event).",
  })
  @ApiEnvelope(
    'The account events after `after`, oldest first: `{ events: [{ id, sequence, type, ' +
      'created_at, data }], next_after, has_more }`. Pass `next_after` back as `after`.',
    ACCOUNT_EVENT_PAGE,
    [400, 401],
  )
  async page(
    @AccountId() accountId: string,
    @Query() query: EventPageQuery,
  ): Promise<SuccessEnvelope<AccountEventPage>> {
    const after = query.after === undefined ? 0 : Number(query.after);
    return ok(await this.feed.page(accountId, after, query.limit ?? DEFAULT_PAGE_SIZE), 'Events.');
  }

  @Get('stream')
  @ApiProduces('text/event-stream')
  @ApiHeader({
    name: 'Last-Event-ID',
    required: false,
    description: 'Resume after this sequence number (EventSource sends it when it reconnects).',
  })
  @ApiQuery({
    ...AFTER_DOC,
    description:
      'Start after this sequence number when no Last-Event-ID is sent (default: only new events).',
  })
  @ApiResponse({
    status: 200,
    description:
      'Server-Sent Events, not the envelope: `id: <sequence>`, `event: <type>`, `data: <the ' +
      'event as GET /events shows it>`, a `retry:` hint first, and a `: heartbeat` comment ' +
      'while idle. Ends when the instance shuts down; reconnect with Last-Event-ID.',
    content: { 'text/event-stream': { schema: { type: 'string' } } },
  })
  @ApiErrors([400, 401])
  async stream(
    @AccountId() accountId: string,
    @Query() query: EventStreamQuery,
    @Headers('last-event-id') lastEventId: string | undefined,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const stream = await this.streams.open(accountId, streamStart(lastEventId, query.after));
    // However the response ends, the stream ends with it: the client hung up, or the request was
    // a HEAD, answered at once without the body.
    if (reply.raw.destroyed || reply.raw.writableEnded) stream.close();
    else reply.raw.once('close', () => stream.close());
    // Sent through Fastify, so the response keeps every hook: request id, security headers,
    // draining, and the request's log line when the stream ends.
    void reply
      .status(200)
      .headers({
        'content-type': 'text/event-stream; charset=utf-8',
        // Proxies (nginx) must pass each event on as it comes, not buffer the response.
        'x-accel-buffering': 'no',
      })
      .send(stream.body);
  }
}
