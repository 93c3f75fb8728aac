import { expect } from 'vitest';
import type { Db } from '../../src/store/driver/db.js';
import type { Simulator } from '../../src/sim/types.js';

/** The stored byte form, written independently of the collector: 0x + even-length lower hex. */
const even = (hex: string) => {
  const digits = hex.slice(2).toLowerCase();
  return '0x' + (digits.length % 2 ? '0' + digits : digits);
};

export interface InternalTxJson {
  height: number;
  hash: string;
  parent_index: number;
  index: number;
  type: string;
  from: string;
  to: string;
  input: string;
  output: string;
  value: string;
  gas: string;
  gasUsed: string;
}

/** Every call frame of heights 2..head in stream order, as the API renders it (docs/api.md §5.4). */
export function internalTxTruth(sim: Simulator, head: number): InternalTxJson[] {
  return internalTxFrames(sim, head).map((f) => f.json);
}

/** Each frame's API JSON and the tracer's error of a frame that failed (null when it succeeded). */
function internalTxFrames(
  sim: Simulator,
  head: number,
): Array<{ json: InternalTxJson; error: string | null }> {
  const expected: Array<{ json: InternalTxJson; error: string | null }> = [];
  for (let h = 2; h <= head; h++) {
    for (const tx of sim.truth.block(h).txs) {
      if (tx.evmHash === undefined) continue;
      for (const f of sim.truth.internalTxs(tx.evmHash)) {
        const json = {
          height: h,
          hash: tx.evmHash,
          parent_index: f.parentIndex,
          index: f.index,
          type: f.type,
          from: f.from.toLowerCase(),
          to: f.to.toLowerCase(),
          input: even(f.input),
          output: even(f.output),
          value: even(f.value),
          gas: even(f.gas),
          gasUsed: even(f.gasUsed),
        };
        expected.push({ json, error: f.error ?? null });
      }
    }
  }
  return expected;
}

/**
 * The internal-tx stage's rows equal the simulator's traces up to `head`: one row per call frame
 * under a gapless sequence in chain order (txs in block order, frames depth-first), the API's JSON,
 * {from, to} account edges with the caller flagged, counters equal to the edges, and the checkpoint
 * at `head`. Height 1 is left out: a minievm node cannot trace genesis. Returns the row count.
 */
export async function expectInternalTxsMatchTruth(db: Db, sim: Simulator, head: number): Promise<number> {
  const frames = internalTxFrames(sim, head);
  const expected = frames.map((f) => f.json);
  const { rows } = await db.query<{
    sequence: number;
    height: number;
    hash: Uint8Array;
    data: string;
    error: string | null;
  }>('SELECT sequence, height, hash, data, error FROM evm_internal_tx ORDER BY sequence');
  expect(rows.map((r) => r.sequence)).toEqual(rows.map((_, i) => i + 1));
  const stored = rows.map((r) => JSON.parse(r.data) as InternalTxJson);
  expect(stored).toEqual(expected);
  // A reverted frame keeps the tracer's error beside the JSON.
  expect(rows.map((r) => r.error)).toEqual(frames.map((f) => f.error));
  rows.forEach((r, i) => {
    expect(r.height).toBe(stored[i]!.height);
    expect('0x' + Buffer.from(r.hash).toString('hex')).toBe(stored[i]!.hash);
  });

  const edges = await db.query<{ sequence: number; account: Uint8Array; signer: boolean }>(
    `SELECT e.sequence, d.account, e.signer FROM evm_internal_tx_accounts e
       JOIN account_dict d ON d.id = e.account_id ORDER BY e.sequence, d.account`,
  );
  const storedEdges = edges.rows.map(
    (e) => `${e.sequence}:0x${Buffer.from(e.account).toString('hex')}:${e.signer}`,
  );
  const expectedEdges = expected.flatMap((f, i) =>
    [...new Set([f.from, f.to].filter(Boolean))].sort().map((a) => `${i + 1}:${a}:${a === f.from}`),
  );
  expect(storedEdges).toEqual(expectedEdges);

  const counts = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM (
       SELECT account_id, count(*)::int8 AS txs, (count(*) FILTER (WHERE signer))::int8 AS signed
         FROM evm_internal_tx_accounts GROUP BY account_id
       EXCEPT SELECT account_id, txs, signed FROM evm_internal_tx_account_counts) d`,
  );
  expect(counts.rows[0]!.n, 'evm_internal_tx_account_counts differs from the edges').toBe(0);
  const checkpoint = await db.query<{ height: number; tx_sequence: number }>(
    "SELECT height, tx_sequence FROM checkpoint WHERE stream = 'internal_tx'",
  );
  expect(checkpoint.rows[0]).toEqual({ height: head, tx_sequence: expected.length });
  return expected.length;
}
