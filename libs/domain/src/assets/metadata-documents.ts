import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { AppError, BoundedCache, newId } from '@app/common';
import { AssetRepository, type MetadataDocumentEntity } from '@app/database';

/** A metadata document and the URI it will be served at, once its row is stored. */
export interface PreparedDocument {
  id: string;
  uri: string;
  /** The row to store with the operation that refers to it. */
  row: MetadataDocumentEntity;
}

/** Documents never change once written: the small ones are kept in memory once read. */
const CACHED_DOCUMENTS = 2_000;
const CACHED_DOCUMENT_MAX_CHARS = 16_384;

/**
 * The metadata JSON documents the service serves at GET /metadata/{id} (that URL is the
 * metadata_uri and the token URI): `prepare` builds a document's row and URI for the write that
 * stores it, `get` reads one back. Another store (IPFS, S3) would keep the same two methods.
 */
@Injectable()
export class MetadataDocuments {
  private readonly documents = new BoundedCache<Record<string, unknown>>(CACHED_DOCUMENTS);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly assets: AssetRepository,
  ) {}

  prepare(accountId: string, document: Record<string, unknown>): PreparedDocument {
    const id = newId();
    return {
      id,
      uri: `${this.config.operations.publicBaseUrl}/metadata/${id}`,
      row: { id, accountId, document: withoutUndefined(document), createdAt: new Date() },
    };
  }

  /**
   * The base URI of an EVM collection's batch-minted items (their token URI is this followed by
   * the token id): named by the operation that creates the collection, known before its address.
   */
  itemsBaseUri(collectionOperationId: string): string {
    return `${this.config.operations.publicBaseUrl}/metadata/collections/${collectionOperationId}/items/`;
  }

  /** The document of an item minted by a batch: found by its collection's creation and its id. */
  async getItem(collectionOperationId: string, tokenId: string): Promise<Record<string, unknown>> {
    if (!/^[0-9a-f-]{36}$/i.test(collectionOperationId) || !/^\d{1,78}$/.test(tokenId)) notFound();
    const metadataId = await this.assets.findItemMetadataId(collectionOperationId, tokenId);
    return this.get(metadataId ?? notFound());
  }

  async get(id: string): Promise<Record<string, unknown>> {
    if (!/^[0-9a-f-]{36}$/i.test(id)) notFound();
    let read: Record<string, unknown> | undefined;
    const small = await this.documents.getOrLoad(id.toLowerCase(), async () => {
      read = (await this.assets.findMetadata(id))?.document ?? notFound();
      return JSON.stringify(read).length <= CACHED_DOCUMENT_MAX_CHARS ? read : null;
    });
    return small ?? read!;
  }
}

function notFound(): never {
  throw AppError.notFound('No metadata document with this id.');
}

function withoutUndefined(document: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(document).filter(([, value]) => value !== undefined));
}
