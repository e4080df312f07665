import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { JsonFragment } from 'ethers';
import solcJs from 'solc';

export const CONTRACT_NAMES = ['AssetToken', 'AssetCollection'] as const;
export type ContractName = (typeof CONTRACT_NAMES)[number];

export interface CompiledArtifact {
  contractName: ContractName;
  sourceName: string;
  compiler: { version: string; openzeppelin: string };
  abi: JsonFragment[];
  bytecode: string;
}

export type CompiledArtifacts = Record<ContractName, CompiledArtifact>;

interface SolcError {
  severity: 'error' | 'warning' | 'info';
  formattedMessage: string;
}

interface SolcOutput {
  errors?: SolcError[];
  contracts?: Record<
    string,
    Record<string, { abi: JsonFragment[]; evm: { bytecode: { object: string } } }>
  >;
}

type ImportResult = { contents: string } | { error: string };

// solc-js ships its API typed as `any`.
const solc = solcJs as {
  compile(input: string, callbacks: { import: (path: string) => ImportResult }): string;
  version(): string;
};

// Fixed settings so that every machine produces the same bytecode. `bytecodeHash: 'none'` drops
// the metadata hash (it would change with source paths, comments and whitespace).
const SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: 'cancun',
  metadata: { bytecodeHash: 'none' },
  outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
};

const sourceName = (name: ContractName): string => `contracts/${name}.sol`;

function readImport(path: string): ImportResult {
  if (!path.startsWith('@openzeppelin/contracts/')) {
    return { error: `import outside @openzeppelin/contracts: ${path}` };
  }
  try {
    return { contents: readFileSync(require.resolve(path), 'utf8') };
  } catch (err) {
    return { error: `cannot read ${path}: ${String(err)}` };
  }
}

function openZeppelinVersion(): string {
  const pkg = readFileSync(require.resolve('@openzeppelin/contracts/package.json'), 'utf8');
  return (JSON.parse(pkg) as { version: string }).version;
}

/** Compiles the service's contracts with solc-js (Standard JSON, OpenZeppelin from node_modules). */
export function compileContracts(): CompiledArtifacts {
  const sources = Object.fromEntries(
    CONTRACT_NAMES.map((name) => [
      sourceName(name),
      { content: readFileSync(join(__dirname, `${name}.sol`), 'utf8') },
    ]),
  );
  const input = { language: 'Solidity', sources, settings: SETTINGS };
  const raw = solc.compile(JSON.stringify(input), { import: readImport });
  const output = JSON.parse(raw) as SolcOutput;

  const problems = (output.errors ?? []).filter((e) => e.severity !== 'info');
  if (problems.length > 0) {
    // Warnings fail too: the committed contracts are expected to compile cleanly.
    throw new Error(`solc: ${problems.map((e) => e.formattedMessage).join('\n')}`);
  }

  const compiler = { version: solc.version(), openzeppelin: openZeppelinVersion() };
  const artifact = (name: ContractName): CompiledArtifact => {
    const contract = output.contracts?.[sourceName(name)]?.[name];
    if (!contract) throw new Error(`solc produced no output for ${name}`);
    return {
      contractName: name,
      sourceName: sourceName(name),
      compiler,
      abi: contract.abi,
      bytecode: `0x${contract.evm.bytecode.object}`,
    };
  };
  return { AssetToken: artifact('AssetToken'), AssetCollection: artifact('AssetCollection') };
}
