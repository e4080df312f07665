import { Controller, Get, Res } from '@nestjs/common';
import { ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Public } from '../auth/auth.decorators';
import { envelopeOf } from '../http/docs/api-envelope.decorator';
import { ShutdownDrain } from '../http/shutdown-drain';
import { HEALTH_REPORT, HEALTH_UNAVAILABLE } from './health.schema';
import { HealthService, type HealthReport } from './health.service';

@ApiTags('health')
@Public()
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthService,
    private readonly drain: ShutdownDrain,
  ) {}

  /**
   * 200 when Postgres, Redis and every configured chain answer; 503 otherwise, with the report,
   * and 503 while the instance drains for shutdown (so load balancers stop sending to it).
   */
  @Get()
  @ApiResponse({
    status: 200,
    description: 'Every dependency answers',
    schema: envelopeOf(HEALTH_REPORT),
  })
  @ApiResponse({
    status: 503,
    description: 'A dependency is down (the report names it), or the instance is draining',
    schema: HEALTH_UNAVAILABLE,
  })
  async check(@Res({ passthrough: true }) reply: FastifyReply): Promise<object> {
    const report: HealthReport = await this.health.check();
    if (this.drain.isDraining) {
      void reply.status(503);
      return unavailable('Shutting down: send requests to another instance.', report);
    }
    if (report.status === 'ok') {
      return { success: true, data: report, message: 'All dependencies answer.' };
    }
    void reply.status(503);
    const down = [
      report.postgres === 'down' ? 'postgres' : null,
      report.redis === 'down' ? 'redis' : null,
      ...report.chains.filter((c) => c.status === 'down').map((c) => c.chain),
    ].filter(Boolean);
    return unavailable(`Not answering: ${down.join(', ')}.`, report);
  }
}

function unavailable(message: string, report: HealthReport): object {
  return {
    success: false,
    error: 'Service unavailable',
    message,
    timestamp: new Date().toISOString(),
    data: report,
  };
}
