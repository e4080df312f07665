import { Controller, Get, Inject, Param, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '@app/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { Public } from '../auth/auth.decorators';
import { loadDashboardAssets, type DashboardAsset } from './dashboard-assets';

/**
 * The page allows its own script, style and JSON calls only: no inline code, no third party, not
 * framed. The page sets text with textContent, never as HTML. Images may come from anywhere over
 * https (an asset's images are the account's own URLs; an image runs no code), and over http too
 * on the local profile, where test and development servers have no TLS.
 */
function securityHeaders(profile: AppConfig['profile']) {
  const images = profile === 'local' ? "'self' data: https: http:" : "'self' data: https:";
  return {
    'Content-Security-Policy':
      `default-src 'none'; script-src 'self'; style-src 'self'; img-src ${images}; ` +
      "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    // Revalidate every time; the ETag makes an unchanged file a bodiless 304.
    'Cache-Control': 'no-cache',
  };
}

/**
 * The dashboard (contract: "Accounts and keys"): a static page at /dashboard, a client of the
 * /account JSON endpoints on the session cookie. The files are read once, at boot.
 */
@ApiExcludeController()
@Public()
@Controller('dashboard')
export class DashboardController {
  private readonly assets = loadDashboardAssets();
  private readonly headers: ReturnType<typeof securityHeaders>;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.headers = securityHeaders(config.profile);
  }

  @Get()
  page(@Req() request: FastifyRequest, @Res() reply: FastifyReply): void {
    this.send('index.html', request, reply);
  }

  @Get(':file')
  file(
    @Param('file') file: string,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): void {
    this.send(file, request, reply);
  }

  private send(name: string, request: FastifyRequest, reply: FastifyReply): void {
    const asset: DashboardAsset | undefined = this.assets.get(name);
    if (!asset) throw AppError.notFound(`No dashboard file ${name}.`);
    void reply.headers({ ...this.headers, ETag: asset.etag });
    if (request.headers['if-none-match'] === asset.etag) {
      void reply.status(304).send();
      return;
    }
    void reply.status(200).type(asset.contentType).send(asset.body);
  }
}
