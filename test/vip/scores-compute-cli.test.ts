import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { normaliseEvmAddress } from '../../src/vip/evm/backend.js';
import { loadScores } from '../../src/vip/scores-file.js';
import { createPgliteDb } from '../../src/store/driver/pglite.js';
import { writeMigratedPgliteDir } from '../helpers/db.js';
import { accountOf, hexOf, writeScoresChain, type BlockSpec } from './scores-chain.js';

/** `vip scores compute|explain|diff` as the operator runs them: the built CLI on a PGlite directory. */

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function cli(args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [inject('cliPath'), 'vip', 'scores', ...args],
      { env: { ...process.env, DATABASE_URL: '' } },
      (err, stdout, stderr) => {
        const code = err ? Number((err as { code?: number }).code ?? 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

const A = accountOf('cli-A');
const B = accountOf('cli-B');
const T0 = Date.UTC(2026, 10, 3);
const BLOCKS: BlockSpec[] = [
  {
    timeMs: T0,
    txs: [
      { signer: A, gasUsed: '1000' },
      { signer: B, gasUsed: '10' },
    ],
  },
  { timeMs: T0 + 1000, txs: [{ signer: A, gasUsed: '500', code: 7 }] },
  { timeMs: T0 + 2000, txs: [{ signer: B, gasUsed: '2500' }] },
];
const RULES = `version: 1
metrics:
  - name: signed
    kind: txs_signed
    weight: 10
  - name: gas
    kind: gas_used
    weight: "0.001"
rounding: ceil
`;

let dir: string;
let dataDir: string;
let rulesPath: string;
const out = (name: string) => path.join(dir, name);
const window = ['--from', '1', '--to', '3'];

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'vip-scores-cli-'));
  dataDir = out('data');
  await writeMigratedPgliteDir(dataDir);
  const db = await createPgliteDb({ dataDir });
  await writeScoresChain(db, { chainId: 'minievm-9', vm: 'evm' }, BLOCKS);
  await db.close();
  rulesPath = out('rules.yaml');
  await writeFile(rulesPath, RULES);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('vip scores CLI', () => {
  it('compute writes a file update-scores takes unchanged, byte-identical on a re-run', async () => {
    const common = ['--stage', '4', '--rules', rulesPath, '--data-dir', dataDir, ...window];
    const first = await cli(['compute', ...common, '--out', out('a.csv')]);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const second = await cli(['compute', ...common, '--out', out('b.csv')]);
    expect(second.code).toBe(0);
    const csv = await readFile(out('a.csv'), 'utf8');
    expect(await readFile(out('b.csv'), 'utf8')).toBe(csv);
    // A: 10×1 + 1.5 gas = 11.5 → 12; B: 10×2 + 2.51 = 22.51 → 23.
    const [a, b] = [hexOf(A), hexOf(B)].sort();
    const amounts = new Map([
      [hexOf(A), 12n],
      [hexOf(B), 23n],
    ]);
    const loaded = await loadScores(out('a.csv'), normaliseEvmAddress, 'reject');
    expect(loaded.entries).toEqual([a, b].map((addr) => ({ addr, amount: amounts.get(addr!) })));
    const meta = JSON.parse(await readFile(out('a.csv.meta.json'), 'utf8')) as Record<string, unknown>;
    expect(meta).toMatchObject({
      chain_id: 'minievm-9',
      vm: 'evm',
      stage: '4',
      indexed_height: 3,
      total_score: '35',
    });
    expect(csv).toContain(`# rules_sha256: ${(meta.rules as { sha256: string }).sha256}`);
    expect(JSON.parse(first.stdout)).toEqual(meta);
  });

  it('diff exits 0 for the same scores and 1 with the differences', async () => {
    const same = await cli(['diff', out('a.csv'), out('b.csv')]);
    expect([same.code, JSON.parse(same.stdout).same]).toEqual([0, true]);
    const text = await readFile(out('a.csv'), 'utf8');
    await writeFile(
      out('c.csv'),
      text.replace(/,12\n/, ',13\n') + '0x00000000000000000000000000000000000000aa,1\n',
    );
    const differ = await cli(['diff', out('a.csv'), out('c.csv')]);
    expect(differ.code).toBe(1);
    expect(JSON.parse(differ.stdout)).toMatchObject({
      same: false,
      added: [{ address: '0x00000000000000000000000000000000000000aa', amount: '1' }],
      removed: [],
      changed: [{ address: hexOf(A), a: '12', b: '13' }],
      a: { total: '35' },
      b: { total: '37' },
    });
  });

  it('explain prints the per-metric breakdown', async () => {
    const r = await cli([
      'explain',
      hexOf(A),
      '--stage',
      '4',
      '--rules',
      rulesPath,
      '--data-dir',
      dataDir,
      ...window,
    ]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      metrics: [
        { name: 'signed', value: '1', weight: '10', contribution: '10' },
        { name: 'gas', value: '1500', weight: '0.001', contribution: '1.5' },
      ],
      weighted_sum: '11.5',
      rounding: 'ceil',
      rounded: '12',
      outcome: 'scored',
      amount_in_file: '12',
    });
  });

  it('refuses an unindexed window and a bad rules file with a typed error (exit 2)', async () => {
    const late = await cli([
      'compute',
      '--stage',
      '4',
      '--rules',
      rulesPath,
      '--data-dir',
      dataDir,
      '--from',
      '1',
      '--to',
      '4',
      '--out',
      out('x.csv'),
    ]);
    expect(late.code).toBe(2);
    expect(late.stderr).toMatch(
      /^error \[window_not_indexed\]: the index is at height 3, before the window's end 4/,
    );
    await writeFile(out('bad.yaml'), RULES.replace('weight: 10', 'weight: ten'));
    const bad = await cli([
      'compute',
      '--stage',
      '4',
      '--rules',
      out('bad.yaml'),
      '--data-dir',
      dataDir,
      ...window,
      '--out',
      out('x.csv'),
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(
      /^error \[invalid_rules\]: bad\.yaml:5: metrics\[0\]\.weight: must be a decimal >= 0/,
    );
  });
});
