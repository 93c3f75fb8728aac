import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { InputError } from '../shared/errors.js';
import type { ScoreEntry } from './types.js';

export type DuplicatePolicy = 'reject' | 'sum' | 'last';

export interface LoadedScores {
  entries: ScoreEntry[];
  total: bigint;
  /** sha256 of the file bytes (resume key). */
  fileHash: string;
  duplicates: { addr: string; count: number }[];
}

/** Largest score every VM's contract can hold (all three store `u64`). */
export const U64_MAX = (1n << 64n) - 1n;

interface RawRow {
  line: number;
  address: string;
  amount: string;
}

function parseCsv(text: string): RawRow[] {
  const rows: RawRow[] = [];
  let firstContent = true;
  text.split(/\r?\n/).forEach((line, i) => {
    const t = line.trim();
    if (t === '' || t.startsWith('#')) return;
    const cells = t.split(/[,;\t]/).map((c) => c.trim().replace(/^"|"$/g, ''));
    // The header may follow `#` comment lines (the files `vip scores compute` writes).
    const isHeader = firstContent && !/\d/.test(cells[1] ?? '');
    firstContent = false;
    if (isHeader) return;
    if (cells.length !== 2)
      throw new InputError('invalid_scores', `line ${i + 1}: expected "address,amount"`);
    rows.push({ line: i + 1, address: cells[0] ?? '', amount: cells[1] ?? '' });
  });
  return rows;
}

function parseJson(text: string): RawRow[] {
  // Quote every number token so the amount's own text reaches parseAmount: integers above 2^53
  // stay exact, and 1e3 or 5.0 are refused instead of being rounded through a float.
  const data = JSON.parse(
    text.replace(/([:[,]\s*)(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)(?=\s*[,\]}])/g, '$1"$2"'),
  ) as unknown;
  if (!Array.isArray(data)) throw new InputError('invalid_scores', 'JSON scores must be an array');
  return data.map((item: unknown, i) => {
    if (Array.isArray(item)) return { line: i + 1, address: String(item[0]), amount: String(item[1]) };
    const o = item as { address?: unknown; addr?: unknown; amount?: unknown; score?: unknown };
    return {
      line: i + 1,
      address: String(o.address ?? o.addr ?? ''),
      amount: String(o.amount ?? o.score ?? ''),
    };
  });
}

/**
 * Scores are u64 on all three contracts (EVM uint64, Move u64, Wasm u64): a larger amount cannot
 * be encoded at all (ABI/BCS) or is refused by the contract's JSON decoder (Wasm).
 */
function parseAmount(text: string): bigint {
  if (!/^\d+$/.test(text)) throw new Error(`amount "${text}" is not a whole number`);
  const v = BigInt(text);
  if (v > U64_MAX) throw new Error(`amount ${text} exceeds the u64 maximum ${U64_MAX}`);
  return v;
}

/**
 * Reads address,amount rows (CSV or JSON), normalises each address for the target VM, and
 * applies the duplicate policy. Every problem is reported before anything is signed.
 */
export async function loadScores(
  path: string,
  normalise: (addr: string) => string,
  policy: DuplicatePolicy,
): Promise<LoadedScores> {
  const bytes = await readFile(path).catch(() => {
    throw new InputError('missing_file', `cannot read scores file ${path}`);
  });
  const { byAddr, order, problems } = mergeRows(readRows(path, bytes.toString('utf8')), normalise, policy);
  const duplicates = [...byAddr]
    .filter(([, v]) => v.count > 1)
    .map(([addr, v]) => ({ addr, count: v.count }));
  if (policy === 'reject' && duplicates.length > 0) {
    problems.push(
      `${duplicates.length} duplicate address(es), e.g. ${duplicates[0]?.addr}; use --duplicates sum|last to merge`,
    );
  }
  if (problems.length > 0) {
    throw new InputError(
      'invalid_scores',
      `${problems.length} problem(s) in ${path}: ${problems.slice(0, 5).join('; ')}`,
      {
        problems: problems.slice(0, 100),
      },
    );
  }
  if (order.length === 0) throw new InputError('invalid_scores', `${path} has no score rows`);
  const entries = order.map((addr) => ({ addr, amount: byAddr.get(addr)?.amount ?? 0n }));
  return {
    entries,
    total: entries.reduce((n, e) => n + e.amount, 0n),
    fileHash: createHash('sha256').update(bytes).digest('hex'),
    duplicates,
  };
}

/** The file's rows, JSON or CSV by its first character. */
function readRows(path: string, text: string): RawRow[] {
  try {
    return /^\s*[[{]/.test(text) ? parseJson(text) : parseCsv(text);
  } catch (err) {
    if (err instanceof InputError) throw err;
    throw new InputError('invalid_scores', `cannot parse ${path}: ${(err as Error).message}`);
  }
}

/** Rows by normalised address in first-seen order (duplicates merged by the policy), and each bad row. */
function mergeRows(rows: RawRow[], normalise: (addr: string) => string, policy: DuplicatePolicy) {
  const problems: string[] = [];
  const byAddr = new Map<string, { amount: bigint; count: number }>();
  const order: string[] = [];
  for (const row of rows) {
    let addr: string;
    let amount: bigint;
    try {
      addr = normalise(row.address);
    } catch (err) {
      problems.push(`row ${row.line}: ${(err as Error).message}`);
      continue;
    }
    try {
      amount = parseAmount(row.amount);
    } catch (err) {
      problems.push(`row ${row.line} (${row.address}): ${(err as Error).message}`);
      continue;
    }
    const seen = byAddr.get(addr);
    if (!seen) {
      byAddr.set(addr, { amount, count: 1 });
      order.push(addr);
    } else {
      seen.count += 1;
      seen.amount = policy === 'sum' ? seen.amount + amount : amount;
      if (seen.amount > U64_MAX) {
        problems.push(`row ${row.line} (${row.address}): summed amount exceeds the u64 maximum ${U64_MAX}`);
      }
    }
  }
  return { byAddr, order, problems };
}
