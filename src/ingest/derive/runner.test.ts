import { describe, expect, it, vi } from 'vitest';
import { testDbFactories } from '../../../test/helpers/db.js';
import { AppError } from '../../shared/errors.js';
import { createNodeWaits } from '../../shared/node-waits.js';
import { silentLogger } from '../../shared/logger.js';
import { createMetricsRegistry } from '../../shared/metrics.js';
import type { Db } from '../../store/driver/db.js';
import { createIngestMetrics } from '../metrics.js';
import { createBlockHead } from './block-head.js';
import { runDerivation } from './runner.js';
import type { Derivation } from './derivation.js';

/** A stage that records each height it is given in a table of its own, one row per height. */
function recordingStage(
  failAt: (height: number, attempt: number) => boolean,
): Derivation<number[]> & { fetched: number[][] } {
  const attempts = new Map<number, number>();
  const fetched: number[][] = [];
  return {
    name: 'internal_tx',
    fetched,
    async fetch(from, to) {
      const heights = Array.from({ length: to - from + 1 }, (_, i) => from + i);
      for (const h of heights) {
        const n = (attempts.get(h) ?? 0) + 1;
        attempts.set(h, n);
        if (failAt(h, n)) throw new AppError('node_unreachable', `node down at ${h}`, { retryable: true });
      }
      fetched.push(heights);
      return heights;
    },
    async write(tx, heights, at) {
      for (const h of heights) await tx.query('INSERT INTO stage_probe (height) VALUES ($1)', [h]);
      return { sequence: at.sequence + heights.length, rows: heights.length };
    },
  };
}

/** vi.waitFor's own 1 s is a guess about machine load: conditions are given half a minute. */
const PATIENCE = { timeout: 30_000, interval: 10 };

/** Resolves once the stage's checkpoint row stands at `height`. */
async function untilCheckpoint(db: Db, height: number) {
  await vi.waitFor(async () => {
    const { rows } = await db.query<{ height: number }>(
      "SELECT height FROM checkpoint WHERE stream = 'internal_tx'",
    );
    expect(rows[0]?.height).toBe(height);
  }, PATIENCE);
}

const storedHeights = async (db: Db) =>
  (await db.query<{ height: number }>('SELECT height FROM stage_probe ORDER BY height')).rows.map(
    (r) => r.height,
  );
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

async function seedBlocks(db: Db, from: number, to: number) {
  await db.query('CREATE TABLE IF NOT EXISTS stage_probe (height bigint PRIMARY KEY)');
  await db.query(
    `INSERT INTO block (height, hash, "timestamp", block_time_ms, proposer, gas_used, gas_wanted, tx_count, total_fee)
     SELECT h, '\\x00', now(), 0, '', 0, 0, 0, '[]' FROM generate_series($1::int, $2::int) h`,
    [from, to],
  );
}

describe.each(testDbFactories())('stage runner on $name', (factory) => {
  const deps = (db: Db, headHeight: { value: number }) => {
    const registry = createMetricsRegistry({ defaultMetrics: false });
    const head = createBlockHead(() => headHeight.value);
    return {
      registry,
      head,
      deps: { db, logger: silentLogger(), metrics: createIngestMetrics(registry), head },
    };
  };

  it('starts below the first block, follows the head, and reports height and lag', async () => {
    const { db, dispose } = await factory.create();
    try {
      await seedBlocks(db, 5, 40);
      const height = { value: 30 };
      const { registry, head, deps: d } = deps(db, height);
      const stage = recordingStage(() => false);
      const running = runDerivation(stage, d, { signal: new AbortController().signal, batchHeights: 7 });
      // Moving the head on wakes the stage; finishing it lets the stage stop once caught up.
      height.value = 40;
      head.notify();
      head.finish();
      await running;
      const { rows } = await db.query<{ height: number }>('SELECT height FROM stage_probe ORDER BY height');
      expect(rows.map((r) => r.height)).toEqual(Array.from({ length: 36 }, (_, i) => 5 + i));
      expect(stage.fetched.every((b) => b.length <= 7)).toBe(true);
      const metrics = await registry.metrics();
      expect(metrics).toContain('rollup_indexer_stage_height{stage="internal_tx"} 40');
      expect(metrics).toContain('rollup_indexer_stage_lag_blocks{stage="internal_tx"} 0');
      expect(metrics).toContain('rollup_indexer_stage_rows_total{stage="internal_tx"} 36');
      const cp = await db.query("SELECT height, tx_sequence FROM checkpoint WHERE stream = 'internal_tx'");
      expect(cp.rows[0]).toEqual({ height: 40, tx_sequence: 36 });
    } finally {
      await dispose();
    }
  });

  it('waits for a fetch failing on node trouble as long as it fails, shown as waiting; then goes on', async () => {
    const { db, dispose } = await factory.create();
    try {
      await seedBlocks(db, 1, 20);
      const { head, deps: d } = deps(db, { value: 20 });
      head.finish();
      const waits = createNodeWaits();
      let nodeUp = false;
      // Height 6 fails twice then works; height 13 fails until the node is back.
      const flaky = recordingStage((h, n) => (h === 6 && n <= 2) || (h === 13 && !nodeUp));
      const running = runDerivation(
        flaky,
        { ...d, waits, retry: { baseMs: 1, capMs: 4 } },
        { signal: new AbortController().signal, batchHeights: 4 },
      );
      // Far more attempts than the old budget (10) that stopped the stage, and the process.
      await vi.waitFor(() => expect(waits.list()[0]?.attempts).toBeGreaterThan(30), PATIENCE);
      expect(waits.list()).toMatchObject([
        {
          part: 'internal_tx stage',
          what: 'internal_tx stage: heights 13..16',
          lastError: 'node down at 13',
        },
      ]);
      expect(await storedHeights(db)).toEqual(range(1, 12));
      nodeUp = true;
      await running;
      expect(await storedHeights(db)).toEqual(range(1, 20));
      expect(waits.list()).toEqual([]);
    } finally {
      await dispose();
    }
  });

  it('stops naming the heights on an error no retry fixes; a restart resumes there', async () => {
    const { db, dispose } = await factory.create();
    try {
      await seedBlocks(db, 1, 8);
      const { head, deps: d } = deps(db, { value: 8 });
      head.finish();
      const broken: Derivation<number[]> = {
        ...recordingStage(() => false),
        fetch: async (from) => {
          if (from < 5) return range(from, from + 3);
          throw new AppError('malformed_state', 'not protobuf');
        },
      };
      await expect(
        runDerivation(broken, d, { signal: new AbortController().signal, batchHeights: 4 }),
      ).rejects.toThrow(/internal_tx stage stopped at heights 5\.\.8: not protobuf; no height is skipped/);
      expect(await storedHeights(db)).toEqual(range(1, 4));
      await runDerivation(
        recordingStage(() => false),
        d,
        {
          signal: new AbortController().signal,
          batchHeights: 4,
        },
      );
      expect(await storedHeights(db)).toEqual(range(1, 8));
    } finally {
      await dispose();
    }
  });
  it('reports the lag at scrape time: it grows while the stage is stuck and the block stream moves on', async () => {
    const { db, dispose } = await factory.create();
    try {
      await seedBlocks(db, 1, 60);
      const height = { value: 10 };
      const { registry, head, deps: d } = deps(db, height);
      const stuck = recordingStage((h) => h === 5);
      const abort = new AbortController();
      const running = runDerivation(stuck, d, {
        signal: abort.signal,
        batchHeights: 4,
      });
      const lag = async () => {
        const text = await registry.metrics();
        return Number(/rollup_indexer_stage_lag_blocks\{stage="internal_tx"\} (\d+)/.exec(text)?.[1]);
      };
      // Heights 1..4 commit; 5..8 keeps failing and is retried.
      await vi.waitFor(async () => {
        expect(await registry.metrics()).toContain('rollup_indexer_stage_height{stage="internal_tx"} 4');
      }, PATIENCE);
      expect(await lag()).toBe(6);
      for (const next of [30, 60]) {
        height.value = next;
        head.notify();
        expect(await lag()).toBe(next - 4);
      }
      expect(await registry.metrics()).toContain('rollup_indexer_stage_height{stage="internal_tx"} 4');
      abort.abort();
      await running;
    } finally {
      await dispose();
    }
  });

  it('commits each fetched batch while the head stays where it is (a halted chain)', async () => {
    const { db, dispose } = await factory.create();
    try {
      await seedBlocks(db, 1, 40);
      const { registry, deps: d } = deps(db, { value: 40 });
      const stage = recordingStage(() => false);
      const abort = new AbortController();
      let stopped = false;
      const running = runDerivation(stage, d, { signal: abort.signal, batchHeights: 7 }).finally(
        () => (stopped = true),
      );
      // The head neither moves nor finishes: the last batch (36..40) must not wait for block 41.
      await untilCheckpoint(db, 40);
      expect(stopped).toBe(false);
      expect(await storedHeights(db)).toEqual(range(1, 40));
      const metrics = await registry.metrics();
      expect(metrics).toContain('rollup_indexer_stage_height{stage="internal_tx"} 40');
      expect(metrics).toContain('rollup_indexer_stage_lag_blocks{stage="internal_tx"} 0');
      abort.abort();
      await running;
      expect(stage.fetched.flat()).toEqual(range(1, 40));
    } finally {
      await dispose();
    }
  });

  it('trails a head that moves one block at a time by at most that block', async () => {
    const { db, dispose } = await factory.create();
    try {
      await seedBlocks(db, 1, 30);
      const height = { value: 10 };
      const { head, deps: d } = deps(db, height);
      const stage = recordingStage(() => false);
      const abort = new AbortController();
      const running = runDerivation(stage, d, { signal: abort.signal, batchHeights: 7 });
      // Each new block is committed by the stage before the next one comes: it never waits for
      // a block above the one it holds.
      for (let next = 11; next <= 30; next++) {
        await untilCheckpoint(db, next - 1);
        height.value = next;
        head.notify();
      }
      await untilCheckpoint(db, 30);
      abort.abort();
      await running;
      expect(await storedHeights(db)).toEqual(range(1, 30));
      expect(stage.fetched.filter((b) => b[0]! > 10)).toEqual(range(11, 30).map((h) => [h]));
    } finally {
      await dispose();
    }
  });

  it('fetches the next batch while one is written when the block stream is ahead', async () => {
    const { db, dispose } = await factory.create();
    try {
      await seedBlocks(db, 1, 20);
      const { head, deps: d } = deps(db, { value: 20 });
      head.finish();
      const stage = recordingStage(() => false);
      let nextFetched!: () => void;
      const prefetched = new Promise<void>((resolve) => (nextFetched = resolve));
      const { fetch, write } = stage;
      stage.fetch = (from, to, signal) => {
        if (from > 1) nextFetched();
        return fetch(from, to, signal);
      };
      // The first batch is written only once the second is being fetched; without the prefetch
      // this write would wait for good, so it gives up after a while and fails the stage.
      stage.write = async (tx, heights, at) => {
        if (heights[0] === 1) {
          const noPrefetch = AbortSignal.timeout(PATIENCE.timeout);
          await new Promise<void>((resolve, reject) => {
            void prefetched.then(resolve);
            noPrefetch.addEventListener('abort', () => reject(new Error('next batch not prefetched')));
          });
        }
        return write(tx, heights, at);
      };
      await runDerivation(stage, d, { signal: new AbortController().signal, batchHeights: 5 });
      expect(await storedHeights(db)).toEqual(range(1, 20));
    } finally {
      await dispose();
    }
  });
});
