/**
 * @asset-issuance/client: a typed client of the Asset Issuance API. Standalone: it imports
 * nothing of the service, only its generated OpenAPI types.
 */
export { AssetIssuanceClient } from './client';
export type { AssetIssuanceClientOptions, WaitOptions } from './client';
export { AssetIssuanceError, OperationTimeoutError } from './errors';
export type {
  Method,
  OperationView,
  PathsFor,
  RequestOptions,
  ResponseData,
  Schemas,
} from './types';
export type { components, paths } from './generated/schema';
