import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BlockTruth, TxTruth } from '../../src/sim/types.js';
import { heavySuiteVms, testDbFactories } from '../helpers/db.js';
import { indexSimulator, type IndexedSimulator } from '../helpers/ingest.js';
import { evmTxTruth, type ExpectedEvmTx } from '../helpers/truth-evm.js';
import { createHarness, walk, type Harness } from './harness.js';
import { BLOCK_KEYS, nodeBlock, nodeTx, TX_KEYS, type Json } from './node-answers.js';

/**
 * End to end: the simulator is indexed by the real ingest pipeline, then every route's answers
 * are compared, whole, with the node's own answers (blocks from CometBFT /block, /block_results
 * and /validators plus the REST opchild validator; txs from REST tx_response; EVM txs from
 * JSON-RPC receipts) through full pagination walks both ways. Which txs a list holds comes from
 * the simulator's ground truth.
 *
 * Each VM once and each store once (heavySuiteVms): the readers' SQL is the same on both stores,
 * and each store's driver renders every route class on at least one VM (the golden answers walk
 * every route class on all three VMs).
 */
const HEAD = 16;

describe.each(
  testDbFactories().flatMap((factory) =>
    heavySuiteVms(factory.name).map((vm) => ({ factory, vm, name: `${factory.name}/${vm}` })),
  ),
)('API against ingested simulator ($name)', ({ factory, vm }) => {
  let h: Harness;
  let indexed: IndexedSimulator;
  let blocks: BlockTruth[];
  let txs: TxTruth[];
  /** The block route's JSON per height (index height - 1), from the node. */
  let nodeBlocks: Json[];
  /** The tx route's JSON per tx hash, from the node. */
  let nodeTxs: Map<string, Json>;
  beforeAll(async () => {
    const chainId = `e2e-${vm}-1`;
    h = await createHarness(factory, { vm, blocks: 0, seed: false, env: { CHAIN_ID: chainId } });
    indexed = await indexSimulator({ db: h.db, vm, head: HEAD, txsPerBlock: '0-4', sim: { chainId } });
    blocks = Array.from({ length: HEAD }, (_, i) => indexed.sim.truth.block(i + 1));
    txs = blocks.flatMap((b) => b.txs); // chain order = sequence order
    const answers = await Promise.all(blocks.map((b) => nodeBlock(indexed.urls, b.height)));
    // The node and the truth agree on which txs each block holds.
    expect(answers.map((a) => a.txHashes)).toEqual(blocks.map((b) => b.txs.map((t) => t.hash)));
    nodeBlocks = answers.map((a) => a.json);
    nodeTxs = new Map(
      await Promise.all(txs.map(async (t) => [t.hash, await nodeTx(indexed.urls, t.hash)] as const)),
    );
  }, 120_000);
  afterAll(async () => {
    await indexed?.close();
    await h?.dispose();
  });

  const expectTxWalk = async (
    path: string,
    expected: TxTruth[],
    query: Record<string, string | string[]> = {},
  ) => {
    const oldest = expected.map((t) => nodeTxs.get(t.hash));
    for (const reverse of ['true', 'false']) {
      const { items, total } = await walk(h, path, 'txs', {
        ...query,
        'pagination.limit': '3',
        'pagination.reverse': reverse,
      });
      expect(items, `${path} reverse ${reverse}`).toStrictEqual(
        reverse === 'true' ? [...oldest].reverse() : oldest,
      );
      // `/txs` without msgs answers MAX(sequence); with msgs, the kept per type-set counts.
      if (path.includes('/by_') || query.msgs !== undefined) {
        expect(total, `${path} ${JSON.stringify(query)} total`).toBe(String(expected.length));
      }
    }
  };

  it('status, blocks and block detail equal the node’s blocks, whole', async () => {
    const status = (await h.get('/status')).json as { chain_id: string; height: number };
    expect(status).toMatchObject({ chain_id: indexed.sim.options.chainId, height: HEAD });
    for (const reverse of ['true', 'false']) {
      const { items, total } = await walk(h, '/indexer/block/v1/blocks', 'blocks', {
        'pagination.limit': '5',
        'pagination.reverse': reverse,
      });
      expect(total).toBe(String(HEAD));
      expect(items).toStrictEqual(reverse === 'true' ? [...nodeBlocks].reverse() : nodeBlocks);
    }
    for (const expected of nodeBlocks) {
      const { block } = (await h.get(`/indexer/block/v1/blocks/${String(expected.height)}`)).json as {
        block: Json;
      };
      expect(block).toStrictEqual(expected);
      expect(Object.keys(block), 'block keys in the order of docs/api.md §4.2').toEqual(BLOCK_KEYS);
    }
  });

  it('tx lists hold the truth’s txs, each whole as the node answers it, with and without msgs', async () => {
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

  it('by_account (with is_signer and msgs) holds the truth’s txs, whole, for every account', async () => {
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

  it('every tx is found by hash, whole, as the node’s tx_response', async () => {
    expect(txs.length).toBeGreaterThan(HEAD / 2);
    for (const truth of txs) {
      const res = await h.get(`/indexer/tx/v1/txs/${truth.hash.toLowerCase()}`);
      const tx = (res.json as { tx: Json }).tx;
      expect(tx, truth.hash).toStrictEqual(nodeTxs.get(truth.hash));
      expect(Object.keys(tx), 'tx keys in the order of docs/api.md §5.2').toEqual(TX_KEYS);
    }
  });

  it.runIf(vm === 'evm')(
    'evm-txs equal the node’s receipts exactly, by list, by height, by hash and by account',
    async () => {
      const expected = await evmTxTruth(indexed.sim, HEAD);
      expect(expected.length).toBeGreaterThan(0);
      await expectEvmWalk('/indexer/tx/v1/evm-txs', expected);
      for (let height = 1; height <= HEAD; height++) {
        await expectEvmWalk(
          `/indexer/tx/v1/evm-txs/by_height/${height}`,
          expected.filter((e) => e.height === height),
        );
      }
      for (const e of expected) {
        const one = (await h.get(`/indexer/tx/v1/evm-txs/${e.hash}`)).json as { tx: Json };
        expect(one.tx).toStrictEqual(JSON.parse(e.data));
      }
      for (const account of new Set(expected.flatMap((e) => e.accounts))) {
        const involved = expected.filter((e) => e.accounts.includes(account));
        await expectEvmWalk(`/indexer/tx/v1/evm-txs/by_account/0x${account}`, involved);
        await expectEvmWalk(
          `/indexer/tx/v1/evm-txs/by_account/0x${account}`,
          involved.filter((e) => e.signer === account),
          { is_signer: 'true' },
        );
      }
    },
  );

  const expectEvmWalk = async (
    path: string,
    expected: ExpectedEvmTx[],
    query: Record<string, string> = {},
  ) => {
    const oldest = expected.map((e) => JSON.parse(e.data) as Json);
    for (const reverse of ['true', 'false']) {
      const { items, total } = await walk(h, path, 'txs', {
        ...query,
        'pagination.limit': '7',
        'pagination.reverse': reverse,
      });
      expect(items, `${path} reverse ${reverse}`).toStrictEqual(
        reverse === 'true' ? [...oldest].reverse() : oldest,
      );
      expect(total).toBe(String(expected.length));
    }
  };
});
