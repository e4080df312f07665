import { assetCollectionArtifact, assetTokenArtifact } from './artifacts';
import { compileContracts, type CompiledArtifacts } from './compile-contracts';

// solc-js (wasm) takes a few seconds to load and compile OpenZeppelin.
jest.setTimeout(120_000);

describe('committed EVM artifacts', () => {
  let fresh: CompiledArtifacts;

  beforeAll(() => {
    fresh = compileContracts();
  });

  it.each([
    ['AssetToken', assetTokenArtifact],
    ['AssetCollection', assetCollectionArtifact],
  ] as const)(
    '%s matches a fresh compile (run `npm run contracts:compile` if not)',
    (name, committed) => {
      expect(committed.contractName).toBe(name);
      expect(committed.abi).toEqual(fresh[name].abi);
      expect(committed.bytecode).toBe(fresh[name].bytecode);
    },
  );
});
