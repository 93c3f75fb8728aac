import { readFile } from 'node:fs/promises';
import { InputError } from '../../shared/errors.js';

/** address → amount of a scores CSV (`#` comments and the header skipped). */
async function readScoresCsv(path: string): Promise<Map<string, bigint>> {
  const text = await readFile(path, 'utf8').catch(() => {
    throw new InputError('missing_file', `cannot read scores file ${path}`);
  });
  const out = new Map<string, bigint>();
  text.split(/\r?\n/).forEach((line, i) => {
    const t = line.trim();
    if (t === '' || t.startsWith('#') || /^address\s*,\s*amount$/i.test(t)) return;
    const [address, amount, extra] = t.split(',').map((c) => c.trim());
    if (!address || !amount || extra !== undefined || !/^\d+$/.test(amount)) {
      throw new InputError('invalid_scores', `${path}:${i + 1}: expected "address,amount"`);
    }
    out.set(address, BigInt(amount));
  });
  return out;
}

/** Added, removed and changed addresses and the totals of two scores files. */
export async function diffScoresFiles(pathA: string, pathB: string) {
  const [a, b] = await Promise.all([readScoresCsv(pathA), readScoresCsv(pathB)]);
  const sum = (m: Map<string, bigint>) => [...m.values()].reduce((n, v) => n + v, 0n);
  const sorted = (xs: string[]) => xs.sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
  const added = sorted([...b.keys()].filter((k) => !a.has(k))).map((k) => ({
    address: k,
    amount: String(b.get(k)),
  }));
  const removed = sorted([...a.keys()].filter((k) => !b.has(k))).map((k) => ({
    address: k,
    amount: String(a.get(k)),
  }));
  const changed = sorted([...a.keys()].filter((k) => b.has(k) && a.get(k) !== b.get(k))).map((k) => ({
    address: k,
    a: String(a.get(k)),
    b: String(b.get(k)),
  }));
  return {
    same: added.length === 0 && removed.length === 0 && changed.length === 0,
    a: { file: pathA, addresses: a.size, total: String(sum(a)) },
    b: { file: pathB, addresses: b.size, total: String(sum(b)) },
    added,
    removed,
    changed,
  };
}
