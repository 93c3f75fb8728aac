import { expect, it } from 'vitest';
import type { TxTruth } from '../../../src/sim/types.js';
import type { ClientChain } from './chain.js';
import { HEAD } from './chain.js';
import { accountOfPubkey, celatoneAccount, fetchParsed, followPages, incrementLastByte } from './client.js';
import {
  celatoneAvgBlockTime,
  celatoneBlock,
  celatoneBlocks,
  celatoneTxByHash,
  celatoneTxs,
  type CelatoneTx,
} from './schemas.js';

/**
 * Celatone's tx and block calls (src/lib/services/tx/sequencer.ts, block/sequencer.ts) with the
 * parameters it sends, every page parsed with its schema, answers compared with the simulator.
 */
const TXS = '/indexer/tx/v1/txs';
const newestFirst = (txs: TxTruth[]) => [...txs].reverse().map((t) => t.hash);
const hashes = (pages: { txs: CelatoneTx[] }[]) => pages.flatMap((p) => p.txs.map((t) => t.txhash));

/**
 * zTxsResponseItemFromRest reads signer_infos[0].public_key, and the creator/minter pages turn
 * it into the signer's address (convertAccountPubkeyToAccountAddress); extractTxLogs files each
 * event of a successful tx without logs under messages[msg_index], which must exist.
 */
export function expectCelatoneCanRead(tx: CelatoneTx, truth: TxTruth | undefined): void {
  const [first] = tx.tx.auth_info.signer_infos;
  expect(first, `${tx.txhash}: no signer info`).toBeDefined();
  if (truth && first && 'key' in first.public_key) {
    expect(accountOfPubkey(first.public_key), `${tx.txhash}: signer of the first key`).toBe(truth.signer);
  }
  if (tx.code !== 0 || tx.logs.length > 0) return;
  for (const event of tx.events) {
    const index = event.attributes.find((a) => a.key === 'msg_index')?.value;
    if (index) expect(Number(index), `${tx.txhash}: msg_index`).toBeLessThan(tx.tx.body.messages.length);
  }
}

export function celatoneTxTests(chain: () => ClientChain): void {
  it('tx count: /txs with count_total and limit 1 (getTxsCountSequencer) is the number of txs', async () => {
    const { h, txs } = chain();
    const page = await fetchParsed(
      h,
      TXS,
      { 'pagination.count_total': true, 'pagination.limit': 1 },
      celatoneTxs,
    );
    expect(page.pagination.total).toBe(txs.length);
    expect(page.txs.map((t) => t.txhash)).toEqual(newestFirst(txs).slice(0, 1));
  });

  it('tx list: /txs limit 10 newest first, every next_key followed (getTxsSequencer)', async () => {
    const { h, txs } = chain();
    const byHash = new Map(txs.map((t) => [t.hash, t]));
    const pages = await followPages(
      h,
      TXS,
      { 'pagination.limit': 10, 'pagination.reverse': true },
      celatoneTxs,
    );
    expect(hashes(pages)).toEqual(newestFirst(txs));
    for (const tx of pages.flatMap((p) => p.txs)) expectCelatoneCanRead(tx, byHash.get(tx.txhash));
  });

  it("account txs: by_account in Celatone's address form, limit 10 newest first, and its count", async () => {
    const { h, txs, accounts, vm } = chain();
    for (const account of accounts) {
      const involved = txs.filter((t) => t.accounts.includes(account));
      const path = `${TXS}/by_account/${encodeURI(celatoneAccount(vm, account))}`;
      const pages = await followPages(
        h,
        path,
        { 'pagination.limit': 10, 'pagination.reverse': true },
        celatoneTxs,
      );
      expect(hashes(pages), path).toEqual(newestFirst(involved));
      const count = await fetchParsed(
        h,
        path,
        { 'pagination.count_total': true, 'pagination.limit': 1 },
        celatoneTxs,
      );
      expect(count.pagination.total, path).toBe(involved.length);
    }
  });

  it('tx detail: /txs/{hash} (getTxsByHashSequencer) for each kind of tx, signer readable from its key', async () => {
    const { h, sampleTxs } = chain();
    for (const truth of sampleTxs) {
      const { tx } = await fetchParsed(h, `${TXS}/${truth.hash.toLowerCase()}`, {}, celatoneTxByHash);
      expect(tx.txhash).toBe(truth.hash);
      expectCelatoneCanRead(tx, truth);
    }
  });

  it('block txs: by_height limit 100, every next_key followed (getTxsByBlockHeightSequencer)', async () => {
    const { h, blocks } = chain();
    for (const block of blocks) {
      const pages = await followPages(
        h,
        `${TXS}/by_height/${encodeURIComponent(block.height)}`,
        { 'pagination.limit': '100' },
        celatoneTxs,
      );
      // No reverse is sent: the default order, newest first.
      expect(hashes(pages), `height ${block.height}`).toEqual(newestFirst(block.txs));
    }
  });

  it('block list: limit 10 with offset 0, load more with the key as given and with its last byte incremented (getBlocksSequencer)', async () => {
    const { h } = chain();
    // Older Celatone releases add 1 to the key's last byte ("a bug in /indexer/block/v1/blocks"); newer ones send it back as is.
    for (const rewriteKey of [(key: string) => key, incrementLastByte]) {
      const pages = await followPages(
        h,
        '/indexer/block/v1/blocks',
        { 'pagination.offset': 0, 'pagination.limit': 10, 'pagination.reverse': true },
        celatoneBlocks,
        { rewriteKey },
      );
      const heights = pages.flatMap((p) => p.blocks.map((b) => b.height));
      expect(heights, rewriteKey.name).toEqual(Array.from({ length: HEAD }, (_, i) => HEAD - i));
      // queryWithArchivalFallback takes an empty page for "not on this node" and asks an archive.
      expect(pages.every((p) => p.blocks.length > 0)).toBe(true);
    }
  });

  it('block detail and average block time (getBlockDataSequencer, getBlockTimeAverageSequencer)', async () => {
    const { h, blocks } = chain();
    for (const truth of blocks) {
      const res = await h.get(`/indexer/block/v1/blocks/${truth.height}`);
      const parsed = celatoneBlock.safeParse((res.json as { block?: unknown } | undefined)?.block);
      expect(parsed.success, `height ${truth.height}: ${res.body.slice(0, 200)}`).toBe(true);
      expect(parsed.data).toMatchObject({ height: truth.height, tx_count: truth.txs.length });
      expect(parsed.data?.hash.toUpperCase()).toBe(truth.hash);
    }
    await fetchParsed(h, '/indexer/block/v1/avg_blocktime', {}, celatoneAvgBlockTime);
  });
}
