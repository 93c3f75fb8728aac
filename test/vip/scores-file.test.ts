import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadScores } from '../../src/vip/scores-file.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'vip-scores-'));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

const load = async (json: string) => {
  const file = path.join(dir, 's.json');
  await writeFile(file, json);
  return loadScores(file, (a) => a.toLowerCase(), 'reject');
};

describe('JSON score files keep each amount exactly as written', () => {
  it('integers up to u64::MAX stay exact (no float on the way)', async () => {
    const r = await load('[{"address":"0xA","amount":18446744073709551615},["0xb", 9007199254740993]]');
    expect(r.entries.map((e) => e.amount)).toEqual([18446744073709551615n, 9007199254740993n]);
    expect(r.total).toBe(18446744073709551615n + 9007199254740993n);
  });

  it('exponents, fractions, negatives and values past u64::MAX are refused, naming row and address', async () => {
    const json = '[["0xa", 1e3], ["0xb", 9007199254740993.0], ["0xc", -5], ["0xd", 18446744073709551616]]';
    await expect(load(json)).rejects.toMatchObject({
      code: 'invalid_scores',
      details: {
        problems: [
          'row 1 (0xa): amount "1e3" is not a whole number',
          'row 2 (0xb): amount "9007199254740993.0" is not a whole number',
          'row 3 (0xc): amount "-5" is not a whole number',
          'row 4 (0xd): amount 18446744073709551616 exceeds the u64 maximum 18446744073709551615',
        ],
      },
    });
  });
});

describe('CSV score files', () => {
  const loadCsv = async (csv: string) => {
    const file = path.join(dir, 's.csv');
    await writeFile(file, csv);
    return loadScores(file, (a) => a.toLowerCase(), 'reject');
  };

  it('take the header after `#` comment lines (the files `vip scores compute` writes)', async () => {
    const r = await loadCsv('# rollup-indexer/vip-scores/1\n# stage: 3\naddress,amount\n0xA,5\n0xb,7\n');
    expect(r.entries).toEqual([
      { addr: '0xa', amount: 5n },
      { addr: '0xb', amount: 7n },
    ]);
  });

  it('take a header only as the first non-comment line', async () => {
    await expect(loadCsv('# c\n0xa,5\naddress,amount\n')).rejects.toMatchObject({ code: 'invalid_scores' });
  });
});
