import { toBech32 } from '../../src/shared/address.js';
import type { Simulator } from '../../src/sim/types.js';
import { heavySuiteVms, testDbFactories } from '../helpers/db.js';
import { indexSimulator } from '../helpers/ingest.js';
import { describe, expect, it } from 'vitest';
import {
  expectIngestMatchesTruth,
  expectNftMatchesTruth,
  expectNftTxEdgesMatchEvents,
} from '../helpers/truth.js';

/*
 * NFT ingest on chains the API suite does not index. The default workload's long chain (600
 * blocks with burns, re-mints and IBC receipts: NFT tables, tx edges and every other table equal
 * the truth) is indexed once per VM and store by test/api/nft-e2e.test.ts, which then walks the
 * NFT routes on it; this file built the same chain again before.
 *
 * Per store, the VMs of heavySuiteVms (test/helpers/db.ts): the NFT collectors differ by VM and run
 * the same SQL on either store. A start from a later height (pruned node) depends on the node, not
 * on the store: it runs on one, PostgreSQL when TEST_DATABASE_URL is set.
 */

describe.each(testDbFactories())('NFT-heavy chain (nftShare 0.8) on $name', (factory) => {
  // Four txs in five are NFT operations: many ops per block, so burns, re-mints and IBC receipts
  // share blocks and txs far more than at the default share. 200 blocks hold ~160 live tokens and
  // ~20 re-mints (counted below); 400 only held more of the same.
  const head = Number(process.env.NFT_HEAVY_TEST_HEAD ?? 200);
  for (const vm of heavySuiteVms(factory.name)) {
    it(`${vm}: ${head} blocks, NFT tables and edges equal the truth`, { timeout: 600_000 }, async () => {
      const { db, dispose } = await factory.create();
      const indexed = await indexSimulator({ db, vm, head, txsPerBlock: '0-6', sim: { nftShare: 0.8 } });
      try {
        const tokens = indexed.sim.truth.nftTokens(head);
        // The knob took: far more tokens than the default share would mint in as many blocks.
        expect(tokens.length).toBeGreaterThan(head / 4);
        expect(remints(indexed.sim, head), 're-minted tokens').toBeGreaterThan(5);
        await expectNftMatchesTruth(db, indexed.sim, head);
        expect(await expectNftTxEdgesMatchEvents(db, vm)).toBeGreaterThan(head);
        await expectIngestMatchesTruth(db, indexed.sim, head);
      } finally {
        await indexed.close();
        await dispose();
      }
    });
  }
});

/** The pruned node's first height. */
const PRUNED_FROM = 100;

describe(`NFT ingest from a later height (pruned node) on ${testDbFactories().at(-1)!.name}`, () => {
  const factory = testDbFactories().at(-1)!;
  for (const vm of ['move', 'wasm', 'evm'] as const) {
    it(
      `${vm}: what it finds agrees with the truth, and it never stops on NFTs minted before the start`,
      { timeout: 300_000 },
      async () => {
        const { db, dispose } = await factory.create();
        // ~10 tokens minted below the start, half of them moved above it.
        const head = 2 * PRUNED_FROM;
        const indexed = await indexSimulator({
          db,
          vm,
          head,
          txsPerBlock: '0-3',
          sim: { faults: `pruned=${PRUNED_FROM}` },
        });
        try {
          const truth = new Map(
            indexed.sim.truth.nftTokens(head).map((t) => [`${t.collectionAddr}/${t.tokenId}`, t]),
          );
          const { rows } = await db.query<{ c: Uint8Array; t: string; owner: Uint8Array; uri: string }>(
            `SELECT n.collection_addr AS c, n.token_id AS t, d.account AS owner, n.uri FROM nft n JOIN account_dict d ON d.id = n.owner_id`,
          );
          expect(rows.length).toBeGreaterThan(0);
          for (const r of rows) {
            const key = `0x${Buffer.from(r.c).toString('hex')}/${r.t}`;
            const want = truth.get(key);
            expect(want, key).toBeDefined();
            expect(toBech32(r.owner, 'init'), key).toBe(want!.owner);
            // Tokens first seen by a transfer (minted before the start) have no uri (docs/ingest.md).
            if (r.uri !== '') expect(r.uri, key).toBe(want!.uri);
          }
          // The case was met: tokens minted below the start move in the blocks indexed.
          expect(movedAfterMintBelow(indexed.sim, PRUNED_FROM, head)).toBeGreaterThan(0);
        } finally {
          await indexed.close();
          await dispose();
        }
      },
    );
  }
});

/** Tokens minted more than once (burnt, then minted again) in heights 1..head. */
function remints(sim: Simulator, head: number): number {
  const mints = new Map<string, number>();
  for (let h = 1; h <= head; h++)
    for (const move of sim.truth.nftMoves(h)) {
      if (move.kind !== 'mint') continue;
      const key = `${move.collectionAddr}/${move.tokenId}`;
      mints.set(key, (mints.get(key) ?? 0) + 1);
    }
  return [...mints.values()].filter((n) => n > 1).length;
}

/** NFT transfers in from..head of tokens minted below `from`. */
function movedAfterMintBelow(sim: Simulator, from: number, head: number): number {
  const below = new Set<string>();
  let moved = 0;
  for (let h = 1; h <= head; h++)
    for (const move of sim.truth.nftMoves(h)) {
      const key = `${move.collectionAddr}/${move.tokenId}`;
      if (h < from && move.kind === 'mint') below.add(key);
      if (h >= from && move.kind === 'transfer' && below.has(key)) moved += 1;
    }
  return moved;
}
