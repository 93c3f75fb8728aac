import { expect, it } from 'vitest';
import { internalTxTruth } from '../../helpers/truth-internal-txs.js';
import { HEAD, type ClientChain } from './chain.js';
import { bytesOf, checksummed, fetchParsed, followPages, sameAccount } from './client.js';
import { celatoneEvmTxByHash, celatoneEvmTxs, celatoneInternalTxs, celatoneRichList } from './schemas.js';

/**
 * Celatone's EVM calls (src/lib/services/evm-txs/sequencer.ts, evm-internal-txs/sequencer.ts)
 * and its rich list (src/lib/services/richlist, types/richlist.ts), with the parameters it sends.
 */
const EVM_TXS = '/indexer/tx/v1/evm-txs';
const INTERNAL = '/indexer/tx/v1/evm-internal-txs';
const listedHashes = (pages: { txs: { transactionHash: string }[] }[]) =>
  pages.flatMap((p) => p.txs.map((t) => t.transactionHash));

export function celatoneEvmTests(chain: () => ClientChain): void {
  /** Every Cosmos tx with an Ethereum hash (minievm gives every tx one), chain order. */
  const evmTxs = () => {
    const { txs, evmHashes } = chain();
    return txs.flatMap((t) => {
      const evmHash = evmHashes.get(t.hash);
      return evmHash ? [{ ...t, evmHash }] : [];
    });
  };

  it('EVM txs: list limit 10 without count, every next_key followed (getEvmTxsSequencer)', async () => {
    const { h } = chain();
    const pages = await followPages(
      h,
      EVM_TXS,
      { 'pagination.count_total': false, 'pagination.limit': 10 },
      celatoneEvmTxs,
    );
    expect(listedHashes(pages)).toEqual(
      evmTxs()
        .map((t) => t.evmHash)
        .reverse(),
    );
  });

  it("EVM block txs: by_height oldest first, in the block's order (getEvmTxsByBlockHeightSequencer pairs them by index)", async () => {
    const { h, blocks, evmHashes } = chain();
    for (const block of blocks) {
      const pages = await followPages(
        h,
        `${EVM_TXS}/by_height/${encodeURIComponent(block.height)}`,
        { 'pagination.count_total': false, 'pagination.limit': 10, 'pagination.reverse': false },
        celatoneEvmTxs,
      );
      const want = block.txs.flatMap((t) => evmHashes.get(t.hash) ?? []);
      expect(listedHashes(pages), `height ${block.height}`).toEqual(want);
    }
  });

  it('EVM account txs: by_account in EIP-55 form holds every EVM tx the account signed (getEvmTxsByAccountAddressSequencer)', async () => {
    const { h, accounts } = chain();
    for (const account of accounts) {
      const path = `${EVM_TXS}/by_account/${encodeURIComponent(checksummed(account))}`;
      const pages = await followPages(
        h,
        path,
        { 'pagination.count_total': false, 'pagination.limit': 10 },
        celatoneEvmTxs,
      );
      const listed = listedHashes(pages);
      expect(new Set(listed).size, path).toBe(listed.length);
      const signed = evmTxs().filter((t) => t.signer === account);
      for (const tx of signed) expect(listed, `${path} ${tx.evmHash}`).toContain(tx.evmHash);
    }
  });

  it('EVM tx detail: evm-txs/{hash} (getEvmTxsByTxHashSequencer) for each kind of tx', async () => {
    const { h, sampleTxs } = chain();
    const sampled = new Set(sampleTxs.map((t) => t.hash));
    for (const tx of evmTxs().filter((t) => sampled.has(t.hash))) {
      const { tx: got } = await fetchParsed(h, `${EVM_TXS}/${tx.evmHash}`, {}, celatoneEvmTxByHash);
      expect(got.transactionHash).toBe(tx.evmHash);
    }
  });

  it('EVM internal txs: by height, by tx hash and by account, as Celatone pages them', async () => {
    const { h, indexed } = chain();
    const frames = internalTxTruth(indexed.sim, HEAD);
    const ids = (list: { hash: string; index: number }[]) => list.map((f) => `${f.hash}#${f.index}`);
    for (let height = 1; height <= HEAD; height++) {
      const pages = await followPages(
        h,
        `${INTERNAL}/by_height/${encodeURIComponent(height)}`,
        { 'pagination.limit': 10, 'pagination.reverse': false },
        celatoneInternalTxs,
      );
      expect(ids(pages.flatMap((p) => p.internal_txs)), `height ${height}`).toEqual(
        ids(frames.filter((f) => f.height === height)),
      );
    }
    for (const hash of new Set(frames.map((f) => f.hash))) {
      const pages = await followPages(
        h,
        `${INTERNAL}/${encodeURIComponent(hash)}`,
        { 'pagination.limit': 10, 'pagination.reverse': false },
        celatoneInternalTxs,
      );
      expect(ids(pages.flatMap((p) => p.internal_txs)), hash).toEqual(
        ids(frames.filter((f) => f.hash === hash)),
      );
    }
    for (const account of new Set(frames.flatMap((f) => [f.from, f.to]))) {
      const pages = await followPages(
        h,
        `${INTERNAL}/by_account/${encodeURIComponent(checksummed(account))}`,
        { 'pagination.limit': 10, 'pagination.reverse': true },
        celatoneInternalTxs,
      );
      const want = frames.filter((f) => sameAccount(f.from, account) || sameAccount(f.to, account));
      expect(ids(pages.flatMap((p) => p.internal_txs)).sort(), account).toEqual(ids(want).sort());
    }
  });
}

export function celatoneRichListTests(chain: () => ClientChain): void {
  it('rich list: pages of 10 by offset, largest first, for every denom (getRichlistSequencer)', async () => {
    const { h, indexed } = chain();
    const holderKey = (account: string, amount: string) =>
      `${Buffer.from(bytesOf(account)).toString('hex')}:${amount}`;
    for (const denom of indexed.sim.truth.denoms()) {
      const truth = indexed.sim.truth.holders(denom, HEAD);
      const listed: { account: string; amount: string }[] = [];
      for (let offset = 0; ; offset += 10) {
        const page = await fetchParsed(
          h,
          `/indexer/richlist/v1/${encodeURIComponent(denom)}`,
          { 'pagination.limit': 10, 'pagination.offset': offset, 'pagination.reverse': true },
          celatoneRichList,
        );
        listed.push(...page.holders);
        expect(page.pagination.total, denom).toBe(truth.length);
        if (page.holders.length < 10) break;
      }
      const amounts = listed.map((x) => BigInt(x.amount));
      expect(amounts, denom).toEqual([...amounts].sort((a, b) => (a < b ? 1 : a > b ? -1 : 0)));
      expect(listed.map((x) => holderKey(x.account, x.amount)).sort(), denom).toEqual(
        truth.map((x) => holderKey(x.account, x.amount)).sort(),
      );
    }
  });
}
