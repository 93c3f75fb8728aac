import { describe, expect, it } from 'vitest';
import { createEvmClient } from '../../src/node/evm.js';
import { createIngestMetrics } from '../../src/ingest/metrics.js';
import { createBlockHead } from '../../src/ingest/derive/block-head.js';
import { createInternalTxDerivation } from '../../src/ingest/derive/internal-txs.js';
import { runDerivation } from '../../src/ingest/derive/runner.js';
import { silentLogger } from '../../src/shared/logger.js';
import { createMetricsRegistry } from '../../src/shared/metrics.js';
import { anvilTransport, jsonRpc, seedEvmTxs, useAnvilScenario } from '../helpers/anvil-scenario.js';
import { testDbFactories } from '../helpers/db.js';
import type { AnvilHandle } from '../vip/anvil.js';

interface RawFrame {
  type: string;
  from: string;
  to?: string;
  value?: string;
  gas?: string;
  gasUsed?: string;
  input?: string;
  output?: string;
  error?: string;
  revertReason?: string;
  calls?: RawFrame[];
}

/**
 * The internal-tx stage against a real EVM: contracts compiled by solc run on anvil (nested calls
 * two levels deep, a CREATE in a constructor, value transfers, a revert caught inside a call, a tx
 * reverted from inside a call), and the stored rows equal anvil's own debug_traceBlockByNumber,
 * flattened here independently. The rich-list stage's anvil test is rich-list-anvil.test.ts.
 */
describe.each(testDbFactories())('The internal-tx stage against anvil on $name', (factory) => {
  const scenario = useAnvilScenario();

  it("stores every frame of anvil's traces, depth-first, with its accounts", async () => {
    const { anvil, head } = scenario;
    const { db, dispose } = await factory.create();
    try {
      await seedEvmTxs(db, anvil, head);
      const transport = anvilTransport(anvil);
      const stage = createInternalTxDerivation({
        db,
        evm: createEvmClient(transport),
        accountPrefix: 'init',
      });
      const blockHead = createBlockHead(() => head);
      blockHead.finish();
      await runDerivation(
        stage,
        {
          db,
          logger: silentLogger(),
          metrics: createIngestMetrics(createMetricsRegistry({ defaultMetrics: false })),
          head: blockHead,
        },
        { signal: new AbortController().signal, batchHeights: 3 },
      );
      await transport.close();

      const { frames: expected, failures } = await anvilFrames(anvil, head);
      const { rows } = await db.query<{
        sequence: number;
        data: string;
        error: string | null;
        revert_reason: string | null;
      }>('SELECT sequence, data, error, revert_reason FROM evm_internal_tx ORDER BY sequence');
      expect(rows.map((r) => r.sequence)).toEqual(expected.map((_, i) => i + 1));
      expect(rows.map((r) => JSON.parse(r.data) as unknown)).toEqual(expected);
      // Each frame's failure is stored as anvil's tracer reported it, reverted frames included.
      expect(rows.map((r) => ({ error: r.error, revertReason: r.revert_reason }))).toEqual(failures);
      expect(failures.filter((f) => f.error === 'execution reverted').length).toBeGreaterThanOrEqual(2);

      // The shapes the scenario was written to produce are all there.
      const types = new Set(expected.map((f) => f.type));
      expect(types).toEqual(new Set(['CREATE', 'CALL']));
      expect(expected.some((f) => f.type === 'CREATE' && f.parent_index === 0)).toBe(true);
      const depth = (f: (typeof expected)[number]): number => {
        const parent = expected.find((p) => p.hash === f.hash && p.index === f.parent_index);
        return parent ? 1 + depth(parent) : 0;
      };
      expect(Math.max(...expected.map(depth))).toBe(2);
      expect(expected.some((f) => f.value !== '0x' && f.value !== '0x00' && f.parent_index === 0)).toBe(true);
      // The tx reverted from inside a call is stored like any other (its frames ran, then reverted).
      const receipts = (await jsonRpc(anvil, 'eth_getBlockReceipts', ['0x' + head.toString(16)])) as Array<{
        transactionHash: string;
        status: string;
      }>;
      const reverted = receipts.filter((r) => r.status === '0x0').map((r) => r.transactionHash);
      expect(reverted).toHaveLength(1);
      expect(expected.filter((f) => f.hash === reverted[0]).length).toBeGreaterThan(1);
      const edges = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM evm_internal_tx_accounts');
      expect(edges.rows[0]!.n).toBe(
        expected.reduce((n, f) => n + new Set([f.from, f.to].filter(Boolean)).size, 0),
      );
      const checkpoint = await db.query<{ height: number; tx_sequence: number }>(
        "SELECT height, tx_sequence FROM checkpoint WHERE stream = 'internal_tx'",
      );
      expect(checkpoint.rows[0]).toEqual({ height: head, tx_sequence: expected.length });
    } finally {
      await dispose();
    }
  });
});

/** anvil's traces of heights 2..head, flattened pre-order into the API's JSON (docs/api.md §5.4). */
async function anvilFrames(anvil: AnvilHandle, head: number) {
  const even = (hex = '0x') => '0x' + (hex.length % 2 ? '0' : '') + hex.slice(2).toLowerCase();
  const out: Array<
    Record<string, unknown> & {
      hash: string;
      index: number;
      parent_index: number;
      type: string;
      value: string;
    }
  > = [];
  const failures: Array<{ error: string | null; revertReason: string | null }> = [];
  for (let h = 2; h <= head; h++) {
    const traces = (await jsonRpc(anvil, 'debug_traceBlockByNumber', [
      '0x' + h.toString(16),
      { tracer: 'callTracer' },
    ])) as Array<{
      txHash: string;
      result: RawFrame;
    }>;
    for (const t of traces) {
      let index = 0;
      const visit = (f: RawFrame, parent: number) => {
        const mine = index++;
        out.push({
          height: h,
          hash: t.txHash,
          parent_index: parent,
          index: mine,
          type: f.type,
          from: f.from.toLowerCase(),
          to: (f.to ?? '').toLowerCase(),
          input: even(f.input),
          output: mine === 0 ? '0x' : even(f.output),
          value: even(f.value),
          gas: even(f.gas),
          gasUsed: even(f.gasUsed),
        });
        failures.push({ error: f.error || null, revertReason: f.revertReason || null });
        for (const c of f.calls ?? []) visit(c, mine);
      };
      visit(t.result, -1);
    }
  }
  return { frames: out, failures };
}
