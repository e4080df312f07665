import { Inject, Injectable, type BeforeApplicationShutdown } from '@nestjs/common';
import type { FastifyInstance } from 'fastify';
import { setTimeout as sleep } from 'node:timers/promises';
import { APP_CONFIG, type AppConfig } from '@app/config';

/**
 * The first step of a SIGTERM: for SHUTDOWN_DRAIN_MS the API keeps serving, reports itself
 * unhealthy (so load balancers take it out) and closes each connection after its response.
 * Only then does Nest close the server, which waits for the requests still in flight. Closing
 * at once would reset keep-alive connections whose requests were sent but not yet read.
 */
@Injectable()
export class ShutdownDrain implements BeforeApplicationShutdown {
  private draining = false;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  get isDraining(): boolean {
    return this.draining;
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.draining = true;
    await sleep(this.config.api.shutdownDrainMs);
  }
}

/** While draining, every response ends its connection: clients reconnect to another instance. */
export function closeConnectionsWhileDraining(
  fastify: FastifyInstance,
  drain: ShutdownDrain,
): void {
  fastify.addHook('onSend', (_request, reply, payload, done) => {
    if (drain.isDraining) void reply.header('connection', 'close');
    done(null, payload);
  });
}
