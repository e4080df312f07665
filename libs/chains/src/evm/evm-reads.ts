import { Contract, type JsonRpcProvider } from 'ethers';
import { assetCollectionArtifact, assetTokenArtifact } from './contracts/artifacts';

/** Live reads of our contracts, for the GET endpoints. */
export async function readTokenSupply(provider: JsonRpcProvider, token: string): Promise<bigint> {
  const contract = new Contract(token, assetTokenArtifact.abi, provider);
  return (await contract.getFunction('totalSupply').staticCall()) as bigint;
}

export async function readTokenBalance(
  provider: JsonRpcProvider,
  token: string,
  holder: string,
): Promise<bigint> {
  const contract = new Contract(token, assetTokenArtifact.abi, provider);
  return (await contract.getFunction('balanceOf').staticCall(holder)) as bigint;
}

export async function readMintedCount(
  provider: JsonRpcProvider,
  collection: string,
): Promise<bigint> {
  const contract = new Contract(collection, assetCollectionArtifact.abi, provider);
  return (await contract.getFunction('totalMinted').staticCall()) as bigint;
}

/** The holder of a token id, or null when it does not exist (never minted, or burned). */
export async function readNftOwner(
  provider: JsonRpcProvider,
  collection: string,
  tokenId: string,
): Promise<string | null> {
  const contract = new Contract(collection, assetCollectionArtifact.abi, provider);
  try {
    return (await contract.getFunction('ownerOf').staticCall(BigInt(tokenId))) as string;
  } catch {
    return null;
  }
}
