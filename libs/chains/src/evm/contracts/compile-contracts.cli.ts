// `npm run contracts:compile`: rewrites the committed artifacts from a fresh compile.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONTRACT_NAMES, compileContracts } from './compile-contracts';

const outDir = join(__dirname, '..', 'artifacts');
const artifacts = compileContracts();
for (const name of CONTRACT_NAMES) {
  const file = join(outDir, `${name}.json`);
  writeFileSync(file, `${JSON.stringify(artifacts[name], null, 2)}\n`);
  const size = (artifacts[name].bytecode.length - 2) / 2;
  console.log(`wrote ${file} (${size} bytes of init code)`);
}
