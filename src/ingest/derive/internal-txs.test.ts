import { describe, expect, it, vi } from 'vitest';
import { testDbFactories } from '../../../test/helpers/db.js';
import type { CallFrame, EvmClient, TxTrace } from '../../node/evm.js';
import { silentLogger } from '../../shared/logger.js';
import { createNodeWaits } from '../../shared/node-waits.js';
import { createMetricsRegistry } from '../../shared/metrics.js';
import type { Db } from '../../store/driver/db.js';
import { createIngestMetrics } from '../metrics.js';
import { createBlockHead } from './block-head.js';
import { createInternalTxDerivation } from './internal-txs.js';
import { runDerivation } from './runner.js';

const A = '0x' + 'a1'.repeat(20);
const B = '0x' + 'b2'.repeat(20);
/** vi.waitFor's own 1 s is a guess about machine load: conditions are given half a minute. */
const PATIENCE = { timeout: 30_000, interval: 10 };
const hashAt = (height: number) => '0x' + height.toString(16).padStart(64, '0');

const frame = (error?: string): CallFrame => ({
  type: 'CALL',
  from: A,
  to: B,
  value: '0x0',
  gas: '0x5208',
  gasUsed: '0x5208',
  input: '0x',
  ...(error ? { error, revertReason: 'not enough' } : {}),
});

/**
 * A node whose trace of `failing` answers a tx-level error for its first `failures` calls; it
 * counts the calls tracing `failing` and records every request's heights.
 */
function tracingNode(
  failing: number,
  failures: number,
): EvmClient & { calls: number; requests: (readonly number[])[] } {
  const node = {
    calls: 0,
    requests: [] as (readonly number[])[],
    receiptsOf: () => Promise.reject(new Error('unused')),
    erc20BalancesAt: () => Promise.reject(new Error('unused')),
    erc20SuppliesAt: () => Promise.reject(new Error('unused')),
    async traceBlocks(heights: readonly number[]): Promise<TxTrace[][]> {
      node.requests.push([...heights]);
      return heights.map((h) => {
        if (h !== failing)
          return [{ txHash: hashAt(h), result: frame(h === 3 ? 'execution reverted' : undefined) }];
        node.calls++;
        return node.calls <= failures
          ? [{ txHash: hashAt(h), error: 'execution timeout' }]
          : [{ txHash: hashAt(h), result: frame() }];
      });
    },
  };
  return node;
}

async function seedEvmChain(db: Db, to: number) {
  await db.query(
    `INSERT INTO block (height, hash, "timestamp", block_time_ms, proposer, gas_used, gas_wanted, tx_count, total_fee)
     SELECT h, '\\x00', now(), 0, '', 0, 0, 1, '[]' FROM generate_series(1, $1::int) h`,
    [to],
  );
  await db.query(
    `INSERT INTO evm_tx (sequence, hash, height, signer_id, data)
     SELECT h, decode(lpad(to_hex(h), 64, '0'), 'hex'), h, 0, '{}' FROM generate_series(1, $1::int) h`,
    [to],
  );
}

describe.each(testDbFactories())('internal-tx stage on $name', (factory) => {
  const setup = async (db: Db, node: EvmClient) => {
    const head = createBlockHead(() => 8);
    head.finish();
    const registry = createMetricsRegistry({ defaultMetrics: false });
    const deps = { db, logger: silentLogger(), metrics: createIngestMetrics(registry), head };
    const waits = createNodeWaits();
    const retry = { baseMs: 1, capMs: 4 };
    const stage = createInternalTxDerivation({ db, evm: node, accountPrefix: 'init', retry, waits });
    return { deps, stage, waits };
  };

  it('retries a height whose trace of one tx failed, then stores every frame with its error', async () => {
    const { db, dispose } = await factory.create();
    try {
      await seedEvmChain(db, 8);
      const node = tracingNode(5, 2);
      const { deps, stage } = await setup(db, node);
      await runDerivation(stage, deps, {
        signal: new AbortController().signal,
        batchHeights: 3,
      });
      expect(node.calls).toBe(3);
      const { rows } = await db.query<{ height: number; error: string | null; revert_reason: string | null }>(
        'SELECT height, error, revert_reason FROM evm_internal_tx ORDER BY sequence',
      );
      // Height 1 is not traceable (genesis); every other height has its one frame.
      expect(rows.map((r) => r.height)).toEqual([2, 3, 4, 5, 6, 7, 8]);
      expect(rows.find((r) => r.height === 3)).toEqual({
        height: 3,
        error: 'execution reverted',
        revert_reason: 'not enough',
      });
      expect(rows.filter((r) => r.error !== null)).toHaveLength(1);
    } finally {
      await dispose();
    }
  });

  it('retries only the request whose trace failed, not the rest of its batch', async () => {
    const { db, dispose } = await factory.create();
    try {
      await seedEvmChain(db, 8);
      const node = tracingNode(5, 2);
      const { deps, stage } = await setup(db, node);
      // One batch of heights 1..8: requests for 2..5 and 6..8 (4 heights each at most).
      await runDerivation(stage, deps, { signal: new AbortController().signal, batchHeights: 8 });
      expect(node.requests).toEqual([
        [2, 3, 4, 5],
        [6, 7, 8],
        [2, 3, 4, 5],
        [2, 3, 4, 5],
      ]);
      const { rows } = await db.query<{ height: number }>(
        'SELECT height FROM evm_internal_tx ORDER BY sequence',
      );
      expect(rows.map((r) => r.height)).toEqual([2, 3, 4, 5, 6, 7, 8]);
    } finally {
      await dispose();
    }
  });

  it('waits while the trace keeps failing, naming the heights and the tx; nothing past it is stored meanwhile', async () => {
    const { db, dispose } = await factory.create();
    try {
      await seedEvmChain(db, 8);
      const node = tracingNode(5, 40);
      const { deps, stage, waits } = await setup(db, node);
      const running = runDerivation(stage, deps, { signal: new AbortController().signal, batchHeights: 3 });
      // Four times the old budget of 10 attempts, which stopped the stage and the process.
      await vi.waitFor(async () => {
        expect(node.calls).toBeGreaterThanOrEqual(20);
        const { rows } = await db.query<{ max: number }>('SELECT max(height) AS max FROM evm_internal_tx');
        expect(rows[0]!.max).toBe(3);
      }, PATIENCE);
      expect(waits.list()).toMatchObject([
        {
          part: 'internal_tx stage',
          what: 'internal_tx stage: debug_traceBlockByNumber 4,5,6',
          lastError: expect.stringContaining(`tx ${hashAt(5)} was not traced: execution timeout`),
        },
      ]);
      await running;
      expect(node.calls).toBe(41);
      const { rows } = await db.query<{ height: number }>(
        'SELECT height FROM evm_internal_tx ORDER BY sequence',
      );
      expect(rows.map((r) => r.height)).toEqual([2, 3, 4, 5, 6, 7, 8]);
      expect(waits.list()).toEqual([]);
    } finally {
      await dispose();
    }
  });
});
