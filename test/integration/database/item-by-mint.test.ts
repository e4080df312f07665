import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { AssetRepository, createDataSource, ITEM_BY_MINT } from '@app/database';
import { insertAccountRow } from '@test/support/account-rows';
import { insertAssetRow } from '@test/support/asset-rows';
import { startTestServices, type TestServices } from '@test/support/test-services';

jest.setTimeout(60_000);

const SOLANA_MINT = '7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU';
const EVM_COLLECTION = '0x5FbDB2315678afecb367f032d93F642f64180aa3';

/**
 * An NFT looked up by its mint address alone (GET /nfts/{mint} of a Solana item): the index on
 * mint addresses holds Solana items only (migration 1767500000000), and the lookup must be one
 * the planner can serve from it.
 */
describe('an item by its mint address', () => {
  let services: TestServices;
  let dataSource: DataSource;
  let assets: AssetRepository;

  beforeAll(async () => {
    services = await startTestServices();
    dataSource = await createDataSource(services.databaseUrl).initialize();
    assets = new AssetRepository(dataSource);
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await services.stop();
  });

  async function insertItem(collectionAddress: string, tokenId: string, mintAddress: string) {
    const accountId = await insertAccountRow(dataSource, 'items');
    const collection = await insertAssetRow(
      dataSource,
      {
        accountId,
        kind: 'collection',
        chainKey: `chain-${randomUUID()}`,
        address: collectionAddress,
      },
      {
        kind: 'nft.mint',
        collection: collectionAddress,
        recipient: 'owner',
        name: 'item',
        metadataUri: 'https://example.test/item.json',
      },
    );
    await dataSource.query(
      `INSERT INTO nft_items (id, collection_id, token_id, mint_address, owner, name, operation_id)
       VALUES ($1, $2, $3, $4, 'owner', 'item', $5)`,
      [randomUUID(), collection.id, tokenId, mintAddress, collection.operationId],
    );
  }

  it("finds a Solana item by its mint, never an EVM item by its collection's address", async () => {
    await insertItem('SoLanaCo11ection1111111111111111111111111111', SOLANA_MINT, SOLANA_MINT);
    await insertItem(EVM_COLLECTION, '1', EVM_COLLECTION);

    expect(await assets.findItemByMint(SOLANA_MINT)).toMatchObject({
      tokenId: SOLANA_MINT,
      mintAddress: SOLANA_MINT,
    });
    expect(await assets.findItemByMint(EVM_COLLECTION)).toBeNull();
  });

  it('is served from the index of Solana mints', async () => {
    const plan = await dataSource.transaction(async (manager) => {
      // Any usable index beats a sequential scan then: the one taken says which is usable.
      await manager.query('SET LOCAL enable_seqscan = off');
      const rows: { 'QUERY PLAN': string }[] = await manager.query(
        `EXPLAIN ${ITEM_BY_MINT.text.replace('$1', `'${SOLANA_MINT}'`)}`,
      );
      return rows.map((row) => row['QUERY PLAN']).join('\n');
    });
    expect(plan).toContain('Index Scan using nft_items_mint_idx');
  });
});
