import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { AppError, newId } from '@app/common';
import { AssetRepository } from '@app/database';

export interface HostedDocument {
  id: string;
  uri: string;
  /** Stores the document in the caller's transaction. */
  write: (manager: EntityManager) => Promise<void>;
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
      write: (manager) =>
        this.assets.insertMetadata(manager, {
          id,
          accountId,
          document: withoutUndefined(document),
          createdAt: new Date(),
        }),
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
