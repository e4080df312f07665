import type { BytesLike, JsonFragment } from 'ethers';
import assetCollectionJson from '../artifacts/AssetCollection.json';
import assetTokenJson from '../artifacts/AssetToken.json';

/** A committed compiled contract, ready for `new ContractFactory(abi, bytecode, signer)`. */
export interface ContractArtifact {
  readonly contractName: string;
  readonly abi: readonly JsonFragment[];
  readonly bytecode: BytesLike;
}

// Regenerate with `npm run contracts:compile`; artifacts.spec.ts fails when they are stale.
export const assetTokenArtifact: ContractArtifact = assetTokenJson;
export const assetCollectionArtifact: ContractArtifact = assetCollectionJson;
