import { Controller, Get, Header, Param } from '@nestjs/common';
import { ApiResponse, ApiTags } from '@nestjs/swagger';
import { MetadataDocuments } from '@app/domain';
import { Public } from '../auth/auth.decorators';
import { ApiErrors } from '../http/docs/api-envelope.decorator';
import { freeObject } from '../http/docs/schema';

/**
 * Hosted metadata: wallets and marketplaces read token URIs as bare JSON documents, so this route
 * answers the document itself, not the envelope (errors keep the envelope).
 */
@ApiTags('metadata')
@Public()
@Controller('metadata')
export class MetadataController {
  constructor(private readonly metadata: MetadataDocuments) {}

  @Get(':id')
  @ApiResponse({
    status: 200,
    description:
      'The metadata JSON document itself (name, description, image, attributes...), not the envelope',
    schema: freeObject,
  })
  @ApiErrors([404])
  @Header('cache-control', 'public, max-age=300')
  async get(@Param('id') id: string): Promise<Record<string, unknown>> {
    return this.metadata.get(id);
  }

  /** The token URI of an item an airdrop minted on EVM: its collection's base URI and its id. */
  @Get('collections/:operation_id/items/:token_id')
  @ApiResponse({
    status: 200,
    description: "The item's metadata JSON document",
    schema: freeObject,
  })
  @ApiErrors([404])
  @Header('cache-control', 'public, max-age=300')
  async item(
    @Param('operation_id') operationId: string,
    @Param('token_id') tokenId: string,
  ): Promise<Record<string, unknown>> {
    return this.metadata.getItem(operationId, tokenId);
  }
}
