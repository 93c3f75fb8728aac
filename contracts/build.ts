// Regenerates contracts/VipScore.json: `npx tsx contracts/build.ts`.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { compileVipScore } from '../src/vip/evm/compile.js';

const dir = path.dirname(new URL(import.meta.url).pathname);
const artifact = await compileVipScore(path.join(dir, 'VipScore.sol'));
await writeFile(path.join(dir, 'VipScore.json'), JSON.stringify(artifact, null, 2) + '\n');
process.stdout.write(
  `wrote contracts/VipScore.json (${(artifact.bytecode.length - 2) / 2} bytes init code)\n`,
);
