import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BlockTruth, Coin, TxTruth, VmType } from '../../src/sim/types.js';
import { testDbFactories } from '../helpers/db.js';
import { indexSimulator, type IndexedSimulator } from '../helpers/ingest.js';
import { createHarness, walk, type Harness } from './harness.js';

/**
 * End to end: the simulator is indexed by the real ingest pipeline, then every route's answers
 * are compared with the simulator's ground truth through full pagination walks both ways.
 */
const HEAD = 16;

// EVM joins when ingest indexes the EVM simulator (at 08:58 UTC it did not index block 1 within 20 s);
// the EVM routes are covered against the seeded database in routes.test.ts meanwhile.
const vms: VmType[] = ['move', 'evm'];

describe.each(
  testDbFactories().flatMap((factory) => vms.map((vm) => ({ factory, vm, name: `${factory.name}/${vm}` }))),
)('API against ingested simulator ($name)', ({ factory, vm }) => {
  let h: Harness;
  let indexed: IndexedSimulator;
  let blocks: BlockTruth[];
  let txs: TxTruth[];
  beforeAll(async () => {
    const chainId = `e2e-${vm}-1`;
    h = await createHarness(factory, { vm, blocks: 0, seed: false, env: { CHAIN_ID: chainId } });
    indexed = await indexSimulator({ db: h.db, vm, head: HEAD, txsPerBlock: '0-4', sim: { chainId } });
    blocks = Array.from({ length: HEAD }, (_, i) => indexed.sim.truth.block(i + 1));
    txs = blocks.flatMap((b) => b.txs); // chain order = sequence order
  }, 120_000);
  afterAll(async () => {
    await indexed?.close();
    await h?.dispose();
  });

  const hashesOf = (items: unknown[]) => items.map((t) => (t as { txhash: string }).txhash);
  const expectTxWalk = async (
    path: string,
    expected: TxTruth[],
    query: Record<string, string | string[]> = {},
  ) => {
    const newest = [...expected].reverse().map((t) => t.hash);
    for (const reverse of ['true', 'false']) {
      const { items, total } = await walk(h, path, 'txs', {
        ...query,
        'pagination.limit': '3',
        'pagination.reverse': reverse,
      });
      expect(hashesOf(items)).toEqual(reverse === 'true' ? newest : [...newest].reverse());
      if (path.includes('/by_')) expect(total).toBe(String(expected.length));
    }
  };

  it('status, blocks and block detail equal the truth', async () => {
    const status = (await h.get('/status')).json as { chain_id: string; height: number };
    expect(status).toMatchObject({ chain_id: indexed.sim.options.chainId, height: HEAD });
    for (const reverse of ['true', 'false']) {
      const { items, total } = await walk(h, '/indexer/block/v1/blocks', 'blocks', {
        'pagination.limit': '5',
        'pagination.reverse': reverse,
      });
      expect(total).toBe(String(HEAD));
      const expected = reverse === 'true' ? [...blocks].reverse() : blocks;
      expect(items.map((b) => (b as { height: string }).height)).toEqual(
        expected.map((b) => String(b.height)),
      );
    }
    for (const truth of blocks) {
      const { block } = (await h.get(`/indexer/block/v1/blocks/${truth.height}`)).json as {
        block: Record<string, unknown>;
      };
      expect(block).toMatchObject({
        chain_id: indexed.sim.options.chainId,
        height: String(truth.height),
        hash: truth.hash,
        timestamp: truth.time.replace(/\.\d+Z$/, 'Z'),
        gas_used: truth.gasUsed,
        gas_wanted: truth.gasWanted,
        tx_count: String(truth.txs.length),
        total_fee: sumFees(truth.txs.map((t) => t.fee)),
      });
    }
  });

  it('tx lists equal the truth, with and without msgs', async () => {
    await expectTxWalk('/indexer/tx/v1/txs', txs);
    const types = [...new Set(txs.flatMap((t) => t.msgTypes))];
    for (const type of types) {
      await expectTxWalk(
        '/indexer/tx/v1/txs',
        txs.filter((t) => t.msgTypes.includes(type)),
        { msgs: `/${type}` },
      );
    }
    if (types.length >= 2) {
      const pair = types.slice(0, 2);
      const either = txs.filter((t) => t.msgTypes.some((m) => pair.includes(m)));
      await expectTxWalk('/indexer/tx/v1/txs', either, { msgs: pair.join(',') });
    }
    for (const truth of blocks) {
      await expectTxWalk(`/indexer/tx/v1/txs/by_height/${truth.height}`, truth.txs);
    }
  });

  it('by_account (with is_signer and msgs) equals the truth for every account', async () => {
    const accounts = [...new Set(txs.flatMap((t) => t.accounts))];
    for (const account of accounts) {
      const involved = txs.filter((t) => t.accounts.includes(account));
      await expectTxWalk(`/indexer/tx/v1/txs/by_account/${account}`, involved);
      await expectTxWalk(
        `/indexer/tx/v1/txs/by_account/${account}`,
        involved.filter((t) => t.signer === account),
        { is_signer: 'true' },
      );
    }
    const busiest = accounts.sort(
      (a, b) =>
        txs.filter((t) => t.accounts.includes(b)).length - txs.filter((t) => t.accounts.includes(a)).length,
    )[0] as string;
    const type = txs.find((t) => t.accounts.includes(busiest))?.msgTypes[0] as string;
    await expectTxWalk(
      `/indexer/tx/v1/txs/by_account/${busiest}`,
      txs.filter((t) => t.accounts.includes(busiest) && t.msgTypes.includes(type)),
      { msgs: type },
    );
  });

  it('every tx is found by hash with the truth’s fields', async () => {
    for (const truth of txs) {
      const res = await h.get(`/indexer/tx/v1/txs/${truth.hash.toLowerCase()}`);
      const tx = (res.json as { tx: Record<string, unknown> }).tx;
      expect(tx).toMatchObject({
        txhash: truth.hash,
        height: String(truth.height),
        code: truth.code,
        gas_wanted: truth.gasWanted,
        gas_used: truth.gasUsed,
        timestamp: blocks[truth.height - 1]?.time,
      });
    }
  });

  it.runIf(vm === 'evm')(
    'evm-txs hold every EVM tx of the truth, by list, by height and by hash',
    async () => {
      const evmTxs = txs.filter((t) => t.evmHash !== undefined);
      expect(evmTxs.length).toBeGreaterThan(0);
      const { items } = await walk(h, '/indexer/tx/v1/evm-txs', 'txs', { 'pagination.limit': '7' });
      const listed = new Set(items.map((r) => (r as { transactionHash: string }).transactionHash));
      for (const truth of evmTxs) {
        expect(listed.has(truth.evmHash!), truth.evmHash).toBe(true);
        const one = (await h.get(`/indexer/tx/v1/evm-txs/${truth.evmHash}`)).json as {
          tx: { transactionHash: string; blockNumber: string };
        };
        expect(one.tx.transactionHash).toBe(truth.evmHash);
        expect(Number(one.tx.blockNumber)).toBe(truth.height);
        const byHeight = await walk(h, `/indexer/tx/v1/evm-txs/by_height/${truth.height}`, 'txs', {});
        expect(byHeight.items.map((r) => (r as { transactionHash: string }).transactionHash)).toContain(
          truth.evmHash,
        );
      }
    },
  );
});

/** Fee coins summed per denom, sorted by denom, zero coins left out (spec §4.2). */
function sumFees(fees: Coin[][]): Coin[] {
  const sums = new Map<string, bigint>();
  for (const coin of fees.flat()) sums.set(coin.denom, (sums.get(coin.denom) ?? 0n) + BigInt(coin.amount));
  return [...sums]
    .filter(([, amount]) => amount !== 0n)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([denom, amount]) => ({ denom, amount: amount.toString() }));
}
