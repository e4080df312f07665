import { Controller, Get, Param, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '@app/common';
import { Public } from '../auth/auth.decorators';
import { loadDashboardAssets, type DashboardAsset } from './dashboard-assets';

/**
 * The page allows its own script, style and JSON calls only: no inline code, no third party, not
 * framed. The page sets text with textContent, never as HTML.
 */
const SECURITY_HEADERS = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
    "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  // Revalidate every time; the ETag makes an unchanged file a bodiless 304.
  'Cache-Control': 'no-cache',
};

/**
 * The dashboard (contract: "Accounts and keys"): a static page at /dashboard, a client of the
 * /account JSON endpoints on the session cookie. The files are read once, at boot.
 */
@ApiExcludeController()
@Public()
@Controller('dashboard')
export class DashboardController {
  private readonly assets = loadDashboardAssets();

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
    void reply.headers({ ...SECURITY_HEADERS, ETag: asset.etag });
    if (request.headers['if-none-match'] === asset.etag) {
      void reply.status(304).send();
      return;
    }
    void reply.status(200).type(asset.contentType).send(asset.body);
  }
}
