import {
  Contract,
  ContractFactory,
  HDNodeWallet,
  Interface,
  JsonRpcProvider,
  Wallet,
  ZeroAddress,
  isCallException,
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
import { planEvmCall } from '@app/chains/evm/evm-planner';

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
