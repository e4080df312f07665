import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { createServer, type Server } from 'node:http';
import { metricsRegistry } from '@app/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { AccountBacklog, refreshAccountGauges } from '@app/queue';
import { workerNetworks } from './worker-networks';

/** The worker's Prometheus metrics on their own port (WORKER_METRICS_PORT), off when unset. */
@Injectable()
export class MetricsServer implements OnApplicationBootstrap, OnApplicationShutdown {
  private server?: Server;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly backlog: AccountBacklog,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const { metricsPort, metricsHost } = this.config.worker;
    if (!metricsPort) return;
    this.server = createServer((request, response) => {
      if (request.url !== '/metrics') {
        response.writeHead(404).end();
        return;
      }
      refreshAccountGauges(this.backlog, workerNetworks(this.config))
        .then(() => metricsRegistry.metrics())
        .then(
          (body) =>
            response.writeHead(200, { 'content-type': metricsRegistry.contentType }).end(body),
          () => response.writeHead(500).end(),
        );
    });
    await new Promise<void>((resolve) => this.server!.listen(metricsPort, metricsHost, resolve));
    new Logger('Metrics').log(`Worker metrics on http://${metricsHost}:${metricsPort}/metrics`);
  }

  async onApplicationShutdown(): Promise<void> {
    await new Promise((resolve) => (this.server ? this.server.close(resolve) : resolve(undefined)));
  }
}
