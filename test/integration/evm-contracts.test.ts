import {
  Contract,
  ContractFactory,
  HDNodeWallet,
  Interface,
  JsonRpcProvider,
  Wallet,
  ZeroAddress,
  getAddress,
  hexlify,
  isCallException,
  randomBytes,
  type ContractTransactionReceipt,
  type ContractTransactionResponse,
  type ErrorDescription,
  type Signer,
} from 'ethers';
import { startAnvil } from '@app/localnet/anvil';
import {
  assetCollectionArtifact,
  assetTokenArtifact,
  type ContractArtifact,
} from '@app/chains/evm/contracts/artifacts';
import { lacksFunction, planEvmCall } from '@app/chains/evm/evm-planner';
import preBatchCollection from './fixtures/AssetCollection.pre-batch.json';
import preBatchToken from './fixtures/AssetToken.pre-batch.json';

jest.setTimeout(60_000);

const MNEMONIC = 'test test test test test test test test test test test junk';
const tokenIface = new Interface(assetTokenArtifact.abi);
const collectionIface = new Interface(assetCollectionArtifact.abi);

let anvil: { url: string; stop(): Promise<void> };
let provider: JsonRpcProvider;
let owner: HDNodeWallet;
let alice: HDNodeWallet;
let bob: HDNodeWallet;

beforeAll(async () => {
  anvil = await startAnvil({ port: 0 });
  provider = new JsonRpcProvider(anvil.url, undefined, { cacheTimeout: -1, pollingInterval: 50 });
  const account = (i: number) =>
    HDNodeWallet.fromPhrase(MNEMONIC, undefined, `m/44'/60'/0'/0/${i}`).connect(provider);
  [owner, alice, bob] = [account(0), account(1), account(2)];
});

afterAll(async () => {
  provider?.destroy();
  await anvil?.stop();
});

async function deploy(artifact: ContractArtifact, args: unknown[]): Promise<Contract> {
  const factory = new ContractFactory(artifact.abi, artifact.bytecode, owner);
  const deployed = await factory.deploy(...args);
  await deployed.waitForDeployment();
  return new Contract(await deployed.getAddress(), artifact.abi, owner);
}

const as = (contract: Contract, signer: Signer) => contract.connect(signer) as Contract;

async function mined(tx: Promise<ContractTransactionResponse>) {
  const receipt = await (await tx).wait();
  if (!receipt || receipt.status !== 1) throw new Error('transaction failed');
  return receipt;
}

/** The custom error a call reverted with, decoded from the revert data as the service would. */
async function revertOf(call: Promise<unknown>, iface: Interface): Promise<ErrorDescription> {
  try {
    await call;
  } catch (err) {
    if (!isCallException(err) || !err.data) throw err;
    const decoded = iface.parseError(err.data);
    if (!decoded) throw new Error(`unknown revert data ${err.data}`);
    return decoded;
  }
  throw new Error('expected a revert');
}

describe('AssetToken (ERC-20) on anvil', () => {
  const unit = 10n ** 6n;
  let token: Contract;

  beforeAll(async () => {
    token = await deploy(assetTokenArtifact, ['Gold', 'GLD', 6, 1_000n * unit, owner.address]);
  });

  it('deploys with the given decimals, mints the initial supply to the owner', async () => {
    expect(await token.name()).toBe('Gold');
    expect(await token.symbol()).toBe('GLD');
    expect(await token.decimals()).toBe(6n);
    expect(await token.owner()).toBe(owner.address);
    expect(await token.totalSupply()).toBe(1_000n * unit);
    expect(await token.balanceOf(owner.address)).toBe(1_000n * unit);
  });

  it('lets the owner mint', async () => {
    await mined(token.mint(alice.address, 25n * unit));
    expect(await token.balanceOf(alice.address)).toBe(25n * unit);
    expect(await token.totalSupply()).toBe(1_025n * unit);
  });

  it('rejects a mint by anyone else with OwnableUnauthorizedAccount', async () => {
    const error = await revertOf(as(token, alice).mint(alice.address, 1n), tokenIface);
    expect(error.name).toBe('OwnableUnauthorizedAccount');
    expect(error.args[0]).toBe(alice.address);
  });

  it('burns from the holder and rejects burning more than the balance', async () => {
    await mined(token.burn(100n * unit));
    expect(await token.balanceOf(owner.address)).toBe(900n * unit);
    expect(await token.totalSupply()).toBe(925n * unit);

    const error = await revertOf(as(token, alice).burn(26n * unit), tokenIface);
    expect(error.name).toBe('ERC20InsufficientBalance');
    expect([...error.args]).toEqual([alice.address, 25n * unit, 26n * unit]);
  });
});

describe('AssetCollection (ERC-721 + ERC-2981) on anvil', () => {
  const uri = (n: number) =>
    `http://127.0.0.1:3000/metadata/0b8c6f2e-5d1a-4c7b-9e3f-2a6d8b1c4e${String(n).padStart(2, '0')}`;
  let collection: Contract;

  const deployCollection = (maxSupply: bigint, receiver = bob.address, bps = 500n) =>
    deploy(assetCollectionArtifact, [
      'Apes',
      'APE',
      'http://127.0.0.1:3000/metadata/collection',
      '',
      maxSupply,
      receiver,
      bps,
      owner.address,
    ]);

  async function mint(target: Contract, to: string, tokenUri: string) {
    const receipt = await mined(target.mint(to, tokenUri));
    const transfer = receipt.logs
      .map((log) => collectionIface.parseLog(log))
      .find((parsed) => parsed?.name === 'Transfer');
    return { tokenId: transfer!.args.tokenId as bigint, gasUsed: receipt.gasUsed };
  }

  beforeAll(async () => {
    collection = await deployCollection(0n);
  });

  it('deploys with its collection metadata', async () => {
    expect(await collection.name()).toBe('Apes');
    expect(await collection.symbol()).toBe('APE');
    expect(await collection.contractURI()).toBe('http://127.0.0.1:3000/metadata/collection');
    expect(await collection.maxSupply()).toBe(0n);
    expect(await collection.totalMinted()).toBe(0n);
    expect(await collection.owner()).toBe(owner.address);
  });

  it('mints sequential ids from 1 with per-token URIs', async () => {
    const first = await mint(collection, alice.address, uri(1));
    const second = await mint(collection, alice.address, uri(2));
    const third = await mint(collection, Wallet.createRandom().address, uri(3));
    console.log(
      `AssetCollection.mint gas, ${uri(1).length}-char URI: first mint ${first.gasUsed}, ` +
        `to the same holder ${second.gasUsed}, to a new holder ${third.gasUsed}`,
    );
    expect([first.tokenId, second.tokenId, third.tokenId]).toEqual([1n, 2n, 3n]);
    expect(await collection.tokenURI(1n)).toBe(uri(1));
    expect(await collection.tokenURI(2n)).toBe(uri(2));
    expect(await collection.ownerOf(1n)).toBe(alice.address);
    expect(await collection.totalMinted()).toBe(3n);
    expect(third.gasUsed).toBeLessThan(200_000n);
  });

  it('reports the default royalty and its interfaces', async () => {
    expect([...(await collection.royaltyInfo(1n, 10_000n))]).toEqual([bob.address, 500n]);
    for (const id of ['0x01ffc9a7', '0x80ac58cd', '0x5b5e139f', '0x2a55205a', '0x49064906']) {
      expect(await collection.supportsInterface(id)).toBe(true);
    }
    expect(await collection.supportsInterface('0xffffffff')).toBe(false);
  });

  it('lets the holder transfer and rejects a transfer by anyone else', async () => {
    await mined(as(collection, alice).transferFrom(alice.address, bob.address, 1n));
    expect(await collection.ownerOf(1n)).toBe(bob.address);

    const error = await revertOf(
      as(collection, alice).transferFrom(bob.address, alice.address, 1n),
      collectionIface,
    );
    expect(error.name).toBe('ERC721InsufficientApproval');
    expect([...error.args]).toEqual([alice.address, 1n]);
  });

  it('lets the holder burn; the token is then gone', async () => {
    await mined(as(collection, bob).burn(1n));
    const error = await revertOf(collection.ownerOf(1n), collectionIface);
    expect(error.name).toBe('ERC721NonexistentToken');
    expect(error.args[0]).toBe(1n);
    expect(await collection.totalMinted()).toBe(3n);
  });

  it('mints to a contract without an ERC-721 receiver hook (plain _mint)', async () => {
    const { tokenId } = await mint(collection, await collection.getAddress(), uri(4));
    expect(await collection.ownerOf(tokenId)).toBe(await collection.getAddress());
  });

  it('rejects a mint by anyone but the owner', async () => {
    const error = await revertOf(
      as(collection, alice).mint(alice.address, uri(9)),
      collectionIface,
    );
    expect(error.name).toBe('OwnableUnauthorizedAccount');
    expect(error.args[0]).toBe(alice.address);
  });

  it('enforces max supply on tokens ever minted, burned ones included', async () => {
    const capped = await deployCollection(2n);
    await mint(capped, alice.address, uri(1));
    await mint(capped, alice.address, uri(2));
    await mined(as(capped, alice).burn(2n));

    const error = await revertOf(capped.mint(alice.address, uri(3)), collectionIface);
    expect(error.name).toBe('MaxSupplyReached');
    expect(error.args[0]).toBe(2n);
    expect(await capped.totalMinted()).toBe(2n);
  });

  it('gives an item minted with a royalty of its own that royalty, others the default; burn drops it', async () => {
    const royalties = await deployCollection(3n);
    const own = async (bps: bigint, tokenUri: string) => {
      const receipt = await mined(
        royalties.mintWithRoyalty(alice.address, tokenUri, owner.address, bps),
      );
      const transfer = receipt.logs
        .map((log) => collectionIface.parseLog(log))
        .find((parsed) => parsed?.name === 'Transfer');
      return transfer!.args.tokenId as bigint;
    };
    const royaltyOf = async (tokenId: bigint) => [
      ...(await royalties.royaltyInfo(tokenId, 10_000n)),
    ];

    const cheaper = await own(250n, uri(1));
    const plain = (await mint(royalties, alice.address, uri(2))).tokenId;
    const free = await own(0n, uri(3));
    expect([cheaper, plain, free]).toEqual([1n, 2n, 3n]);
    expect(await royalties.tokenURI(cheaper)).toBe(uri(1));
    expect(await royaltyOf(cheaper)).toEqual([owner.address, 250n]);
    expect(await royaltyOf(plain)).toEqual([bob.address, 500n]);
    expect(await royaltyOf(free)).toEqual([owner.address, 0n]);

    // It counts toward max supply like any mint.
    const full = await revertOf(own(100n, uri(4)), collectionIface);
    expect(full.name).toBe('MaxSupplyReached');

    await mined(as(royalties, alice).burn(cheaper));
    expect(await royaltyOf(cheaper)).toEqual([bob.address, 500n]);
  });

  it('rejects a mint with royalty by anyone but the owner, or above 10000 bps', async () => {
    const notOwner = await revertOf(
      as(collection, alice).mintWithRoyalty(alice.address, uri(9), alice.address, 100n),
      collectionIface,
    );
    expect(notOwner.name).toBe('OwnableUnauthorizedAccount');

    const tooHigh = await revertOf(
      collection.mintWithRoyalty(alice.address, uri(9), owner.address, 10_001n),
      collectionIface,
    );
    expect(tooHigh.name).toBe('ERC2981InvalidTokenRoyalty');
  });

  it('deploys without royalty when receiver and bps are both zero, rejects a zero receiver with a fee', async () => {
    const plain = await deployCollection(0n, ZeroAddress, 0n);
    expect([...(await plain.royaltyInfo(1n, 10_000n))]).toEqual([ZeroAddress, 0n]);

    const error = await revertOf(deployCollection(0n, ZeroAddress, 250n), collectionIface);
    expect(error.name).toBe('ERC2981InvalidDefaultRoyaltyReceiver');
  });
});

describe('planning an item mint with a royalty of its own', () => {
  const intent = (collection: string) => ({
    kind: 'nft.mint' as const,
    collection,
    recipient: alice.address,
    name: 'Item',
    metadataUri: 'http://127.0.0.1:3000/metadata/item',
    sellerFeeBps: 250,
  });

  it('calls mintWithRoyalty on a collection that has it', async () => {
    const collection = await deploy(assetCollectionArtifact, [
      'Apes',
      'APE',
      '',
      '',
      0n,
      bob.address,
      500n,
      owner.address,
    ]);
    const call = await planEvmCall(provider, owner.address, intent(await collection.getAddress()));
    expect(collectionIface.parseTransaction({ data: call.data })?.name).toBe('mintWithRoyalty');
  });

  it('answers 409, not a 502, where the contract predates mintWithRoyalty', async () => {
    // Any of our contracts without the function stands for a collection deployed before it.
    const older = await deploy(assetTokenArtifact, ['Gold', 'GLD', 6, 1n, owner.address]);
    await expect(
      planEvmCall(provider, owner.address, intent(await older.getAddress())),
    ).rejects.toMatchObject({ code: 'CONFLICT', message: expect.stringMatching(/seller_fee/) });
  });
});

/** Addresses no account has held anything at: each mint to one pays for a fresh balance slot. */
const freshAddresses = (count: number) =>
  Array.from({ length: count }, () => getAddress(hexlify(randomBytes(20))));

/** The collection's mints in a receipt, in log order. */
function mintsIn(receipt: ContractTransactionReceipt): { to: string; tokenId: bigint }[] {
  return receipt.logs
    .map((log) => collectionIface.parseLog(log))
    .filter((parsed) => parsed?.name === 'Transfer' && parsed.args.from === ZeroAddress)
    .map((parsed) => ({ to: parsed!.args.to as string, tokenId: parsed!.args.tokenId as bigint }));
}

describe('AssetCollection batch mints (airdrops) on anvil', () => {
  const itemsBase = 'https://example.com/items/';
  const ownUri = 'http://127.0.0.1:3000/metadata/0b8c6f2e-5d1a-4c7b-9e3f-2a6d8b1c4e';

  const deployBatchCollection = (maxSupply = 0n, base = itemsBase) =>
    deploy(assetCollectionArtifact, [
      'Drops',
      'DRP',
      'https://example.com/collection',
      base,
      maxSupply,
      bob.address,
      500n,
      owner.address,
    ]);

  it('mints sequential ids to the recipients in order; their URI is the base followed by the id', async () => {
    const drops = await deployBatchCollection();
    const recipients = freshAddresses(100);
    expect(await drops.mintBatch.staticCall(recipients)).toBe(1n);
    const minted = mintsIn(await mined(drops.mintBatch(recipients)));

    expect(minted).toEqual(recipients.map((to, i) => ({ to, tokenId: BigInt(i + 1) })));
    expect(await drops.totalMinted()).toBe(100n);
    expect(await drops.ownerOf(37n)).toBe(recipients[36]);
    expect(await drops.balanceOf(recipients[99])).toBe(1n);
    expect(await drops.tokenURI(1n)).toBe(`${itemsBase}1`);
    expect(await drops.tokenURI(100n)).toBe(`${itemsBase}100`);
    expect([...(await drops.royaltyInfo(55n, 10_000n))]).toEqual([bob.address, 500n]);

    // A single mint on the same collection keeps its own URI as it is (not base + URI), and the
    // ids run on from one counter.
    await mined(drops.mint(alice.address, ownUri));
    expect(await drops.tokenURI(101n)).toBe(ownUri);
    expect(await drops.mintBatch.staticCall([alice.address])).toBe(102n);
    const next = mintsIn(await mined(drops.mintBatch([alice.address, bob.address])));
    expect(next.map(({ tokenId }) => tokenId)).toEqual([102n, 103n]);
    expect(await drops.tokenURI(103n)).toBe(`${itemsBase}103`);

    // Burned, a batch item has no URI any more.
    await mined(as(drops, bob).burn(103n));
    expect((await revertOf(drops.tokenURI(103n), collectionIface)).name).toBe(
      'ERC721NonexistentToken',
    );
  });

  it('gives batch items no URI on a collection without a base', async () => {
    const bare = await deployBatchCollection(0n, '');
    await mined(bare.mintBatch([alice.address]));
    await mined(bare.mint(alice.address, ownUri));
    expect(await bare.tokenURI(1n)).toBe('');
    expect(await bare.tokenURI(2n)).toBe(ownUri);
  });

  it('gives each item of mintBatchWithRoyalty its own royalty', async () => {
    const drops = await deployBatchCollection();
    await mined(drops.mint(alice.address, ownUri));
    const receipt = await mined(
      drops.mintBatchWithRoyalty([alice.address, bob.address, alice.address], owner.address, [
        250n,
        0n,
        10_000n,
      ]),
    );
    expect(mintsIn(receipt).map(({ tokenId }) => tokenId)).toEqual([2n, 3n, 4n]);
    const royaltyOf = async (id: bigint) => [...(await drops.royaltyInfo(id, 10_000n))];
    expect(await royaltyOf(1n)).toEqual([bob.address, 500n]);
    expect(await royaltyOf(2n)).toEqual([owner.address, 250n]);
    expect(await royaltyOf(3n)).toEqual([owner.address, 0n]);
    expect(await royaltyOf(4n)).toEqual([owner.address, 10_000n]);
    expect(await drops.tokenURI(3n)).toBe(`${itemsBase}3`);

    const mismatch = await revertOf(
      drops.mintBatchWithRoyalty([alice.address, bob.address], owner.address, [250n]),
      collectionIface,
    );
    expect(mismatch.name).toBe('BatchLengthMismatch');
    expect([...mismatch.args]).toEqual([2n, 1n]);

    const tooHigh = await revertOf(
      drops.mintBatchWithRoyalty([alice.address, bob.address], owner.address, [250n, 10_001n]),
      collectionIface,
    );
    expect(tooHigh.name).toBe('ERC2981InvalidTokenRoyalty');
    expect(await drops.totalMinted()).toBe(4n);
  });

  it('mints a whole batch under max supply or none of it', async () => {
    const capped = await deployBatchCollection(5n);
    await mined(capped.mintBatch([alice.address, alice.address, alice.address]));

    for (const over of [
      capped.mintBatch([alice.address, bob.address, bob.address]),
      capped.mintBatchWithRoyalty([bob.address, bob.address, bob.address], owner.address, [
        1n,
        1n,
        1n,
      ]),
    ]) {
      const error = await revertOf(over, collectionIface);
      expect(error.name).toBe('MaxSupplyReached');
      expect(error.args[0]).toBe(5n);
    }
    expect(await capped.totalMinted()).toBe(3n);
    expect(await capped.balanceOf(bob.address)).toBe(0n);

    // A zero address anywhere in a batch undoes the whole of it too.
    const zero = await revertOf(capped.mintBatch([bob.address, ZeroAddress]), collectionIface);
    expect(zero.name).toBe('ERC721InvalidReceiver');
    expect(await capped.totalMinted()).toBe(3n);

    await mined(capped.mintBatch([bob.address, bob.address]));
    expect(await capped.totalMinted()).toBe(5n);
    expect(await capped.balanceOf(bob.address)).toBe(2n);
  });

  it('rejects an empty batch, and a batch by anyone but the owner', async () => {
    const drops = await deployBatchCollection();
    expect((await revertOf(drops.mintBatch([]), collectionIface)).name).toBe('EmptyBatch');
    expect(
      (await revertOf(drops.mintBatchWithRoyalty([], owner.address, []), collectionIface)).name,
    ).toBe('EmptyBatch');

    const notOwner = await revertOf(as(drops, alice).mintBatch([alice.address]), collectionIface);
    expect(notOwner.name).toBe('OwnableUnauthorizedAccount');
    expect(notOwner.args[0]).toBe(alice.address);
    const notOwnerRoyalty = await revertOf(
      as(drops, alice).mintBatchWithRoyalty([alice.address], alice.address, [100n]),
      collectionIface,
    );
    expect(notOwnerRoyalty.name).toBe('OwnableUnauthorizedAccount');
  });

  it('costs well under a single mint per item (printed)', async () => {
    const drops = await deployBatchCollection();
    // Past the first mint, so that no measure pays for the counter's first write alone.
    await mined(drops.mint(alice.address, `${ownUri}00`));
    const single = (await mined(drops.mint(freshAddresses(1)[0], `${ownUri}01`))).gasUsed;

    const perItem: Record<string, bigint> = {};
    for (const count of [100, 500]) {
      const receipt = await mined(drops.mintBatch(freshAddresses(count)));
      expect(mintsIn(receipt)).toHaveLength(count);
      perItem[`mintBatch ${count}`] = receipt.gasUsed / BigInt(count);
    }
    const withRoyalty = await mined(
      drops.mintBatchWithRoyalty(freshAddresses(100), owner.address, Array(100).fill(250n)),
    );
    perItem['mintBatchWithRoyalty 100'] = withRoyalty.gasUsed / 100n;

    console.log(
      `AssetCollection gas per item, each to a fresh holder: one mint with a ${ownUri.length + 2}-char ` +
        `URI ${single}; ${Object.entries(perItem)
          .map(([what, gas]) => `${what}: ${gas}`)
          .join(', ')}`,
    );
    expect(perItem['mintBatch 100']).toBeLessThan(57_000n);
    expect(perItem['mintBatch 500']).toBeLessThan(57_000n);
    expect(perItem['mintBatch 500']).toBeLessThan(single / 3n);
  });
});

describe('AssetToken batch mints (airdrops) on anvil', () => {
  let token: Contract;

  beforeAll(async () => {
    token = await deploy(assetTokenArtifact, ['Drop', 'DRP', 18, 0n, owner.address]);
  });

  it('mints each amount to its recipient (one listed twice gets both)', async () => {
    const [first, second] = freshAddresses(2);
    const receipt = await mined(
      token.mintBatch([first, second, first, alice.address], [10n, 20n, 5n, 10n ** 30n]),
    );
    expect(await token.balanceOf(first)).toBe(15n);
    expect(await token.balanceOf(second)).toBe(20n);
    expect(await token.balanceOf(alice.address)).toBe(10n ** 30n);
    expect(await token.totalSupply()).toBe(35n + 10n ** 30n);

    const recipients = freshAddresses(100);
    const hundred = await mined(token.mintBatch(recipients, Array(100).fill(1n)));
    expect(await token.balanceOf(recipients[99])).toBe(1n);
    console.log(
      `AssetToken.mintBatch gas: 4 items ${receipt.gasUsed}; 100 to fresh holders ` +
        `${hundred.gasUsed / 100n} per item`,
    );
  });

  it('rejects an empty batch, lengths that differ, and a batch by anyone but the owner', async () => {
    expect((await revertOf(token.mintBatch([], []), tokenIface)).name).toBe('EmptyBatch');
    const mismatch = await revertOf(token.mintBatch([alice.address], [1n, 2n]), tokenIface);
    expect(mismatch.name).toBe('BatchLengthMismatch');
    expect([...mismatch.args]).toEqual([1n, 2n]);
    const notOwner = await revertOf(as(token, alice).mintBatch([alice.address], [1n]), tokenIface);
    expect(notOwner.name).toBe('OwnableUnauthorizedAccount');
  });
});

describe('planning a batch', () => {
  const nftBatch = (collection: string, sellerFeeBps?: number[]) => ({
    kind: 'nft.mintBatch' as const,
    collection,
    recipients: [alice.address, bob.address],
    sellerFeeBps,
  });
  const tokenBatch = (asset: string) => ({
    kind: 'token.mintBatch' as const,
    asset,
    recipients: [alice.address, bob.address],
    amounts: ['1', '2'],
  });

  /** What planning threw, or a failure if it did not. */
  async function refusal(plan: Promise<unknown>): Promise<unknown> {
    try {
      await plan;
    } catch (error) {
      return error;
    }
    throw new Error('expected planning to fail');
  }

  it('estimates batches on contracts that have them', async () => {
    const drops = await deploy(assetCollectionArtifact, [
      'D',
      'D',
      '',
      'b/',
      0n,
      ZeroAddress,
      0n,
      owner.address,
    ]);
    const token = await deploy(assetTokenArtifact, ['Gold', 'GLD', 6, 0n, owner.address]);
    for (const intent of [
      nftBatch(await drops.getAddress()),
      nftBatch(await drops.getAddress(), [100, 200]),
      tokenBatch(await token.getAddress()),
    ]) {
      const call = await planEvmCall(provider, owner.address, intent);
      expect(call.gasLimit).toBeGreaterThan(50_000n);
    }
  });

  it("answers a batch's own revert as the client's error, not as a missing function", async () => {
    const capped = await deploy(assetCollectionArtifact, [
      'D',
      'D',
      '',
      'b/',
      1n,
      ZeroAddress,
      0n,
      owner.address,
    ]);
    const error = await refusal(
      planEvmCall(provider, owner.address, nftBatch(await capped.getAddress())),
    );
    expect(lacksFunction(error)).toBe(false);
    expect(error).toMatchObject({ code: 'CONFLICT', message: expect.stringMatching(/max supply/) });
  });

  it('leaves lacksFunction true on contracts deployed before batches, for the worker to mint one by one', async () => {
    const older = await deploy(preBatchCollection, [
      'Old',
      'OLD',
      '',
      0n,
      bob.address,
      500n,
      owner.address,
    ]);
    const olderToken = await deploy(preBatchToken, ['Gold', 'GLD', 6, 0n, owner.address]);
    for (const intent of [
      nftBatch(await older.getAddress()),
      nftBatch(await older.getAddress(), [100, 200]),
      tokenBatch(await olderToken.getAddress()),
    ]) {
      expect(lacksFunction(await refusal(planEvmCall(provider, owner.address, intent)))).toBe(true);
    }
    // The old collection still mints one by one, with the URI it is given.
    await mined(older.mint(alice.address, 'https://example.com/old/1'));
    expect(await older.tokenURI(1n)).toBe('https://example.com/old/1');
  });
});
