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
