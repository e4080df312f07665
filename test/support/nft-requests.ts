import type { HttpClient } from './http-client';

/** Creates an NFT collection on `base` (a synchronous request) and returns its address. */
export async function createBaseCollection(
  api: HttpClient,
  name: string,
  description: string,
): Promise<string> {
  const created = await api.post('/nfts', {
    network: 'base',
    name,
    description,
    images: ['https://example.com/collection.png'],
  });
  expect(created.status).toBe(200);
  return created.body.data.mint_address as string;
}

/** Mints an item into `collection` without waiting for it (`respond-async`); its operation id. */
export async function mintAsync(
  api: HttpClient,
  collection: string,
  name: string,
): Promise<string> {
  const response = await api.post(
    `/nfts/${collection}/mint`,
    { name, images: ['https://example.com/x.png'] },
    { prefer: 'respond-async' },
  );
  expect(response.status).toBe(202);
  return response.body.data.operation_id as string;
}
