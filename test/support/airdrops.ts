import type { Data } from './envelope-assertions';
import type { HttpClient } from './http-client';

/** Follows GET /batches/{id} until every entry has settled (bounded). */
export async function settledBatch(api: HttpClient, id: string, timeoutMs = 90_000): Promise<Data> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await api.get(`/batches/${id}`);
    if (response.status !== 200) throw new Error(`GET /batches/${id}: ${response.status}`);
    const batch = response.body.data as Data;
    if (batch.status === 'completed' || batch.status === 'completed_with_failures') return batch;
    if (Date.now() > deadline) {
      throw new Error(`Batch ${id} still ${batch.status}: ${JSON.stringify(batch.counts)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Every entry of a batch, paged through GET /batches/{id}/items. */
export async function batchItems(api: HttpClient, id: string, query = ''): Promise<Data[]> {
  const items: Data[] = [];
  let cursor: string | null = null;
  do {
    const after: string = cursor ? `&cursor=${cursor}` : '';
    const response = await api.get(`/batches/${id}/items?limit=1000${query}${after}`);
    if (response.status !== 200) throw new Error(`items: ${JSON.stringify(response.body)}`);
    items.push(...(response.body.data.items as Data[]));
    cursor = response.body.data.next_cursor as string | null;
  } while (cursor);
  return items;
}
