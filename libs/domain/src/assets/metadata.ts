import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { AppError, newId } from '@app/common';
import { AssetRepository, type MetadataDocumentEntity } from '@app/database';

export interface HostedDocument {
  id: string;
  uri: string;
  /** The row to store with the operation that refers to it. */
  row: MetadataDocumentEntity;
}

/**
 * Metadata JSON the service hosts at GET /metadata/{id}; that URL is the metadata_uri and the
 * token URI. Another uploader (IPFS, S3) would implement the same `host` contract.
 */
@Injectable()
export class MetadataHost {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly assets: AssetRepository,
  ) {}

  host(accountId: string, document: Record<string, unknown>): HostedDocument {
    const id = newId();
    return {
      id,
      uri: `${this.config.operations.publicBaseUrl}/metadata/${id}`,
      row: { id, accountId, document: withoutUndefined(document), createdAt: new Date() },
    };
  }

  async get(id: string): Promise<Record<string, unknown>> {
    const found = /^[0-9a-f-]{36}$/i.test(id) ? await this.assets.findMetadata(id) : null;
    if (!found) throw AppError.notFound('No metadata document with this id.');
    return found.document;
  }
}

function withoutUndefined(document: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(document).filter(([, value]) => value !== undefined));
}
