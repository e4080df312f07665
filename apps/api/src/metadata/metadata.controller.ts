import { Controller, Get, Header, Param } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { MetadataHost } from '@app/domain';
import { Public } from '../auth/auth.decorators';

/**
 * Hosted metadata: wallets and marketplaces read token URIs as bare JSON documents, so this route
 * answers the document itself, not the envelope (errors keep the envelope).
 */
@ApiTags('metadata')
@Public()
@Controller('metadata')
export class MetadataController {
  constructor(private readonly metadata: MetadataHost) {}

  @Get(':id')
  @Header('cache-control', 'public, max-age=300')
  async get(@Param('id') id: string): Promise<Record<string, unknown>> {
    return this.metadata.get(id);
  }
}
