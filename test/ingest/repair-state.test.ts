import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NodeRows } from '../../src/ingest/repair/node-rows.js';
import { runVerify } from '../../src/ingest/repair/verify.js';
import { toBech32 } from '../../src/shared/address.js';
import { createSimulator } from '../../src/sim/simulator.js';
import type { Simulator, SimulatorUrls, VmType } from '../../src/sim/types.js';
import type { Db } from '../../src/store/driver/db.js';
import { testDbFactories } from '../helpers/db.js';
import { ingestFrom } from '../helpers/ingest.js';
import { openTestNodeRows } from '../helpers/repair.js';

/**
 * `verify`'s state checks (docs/ingest.md §11.1) on each VM — owners come from a Move object, a
 * cw721 `owner_of`, an ERC-721 `ownerOf`; balances from bank or ERC-20 reads — with the simulator
 * as the node: a clean index has no difference, all rows or a seeded sample; a token given another
 * owner and a balance changed are each named with their route, and a sample of every row finds
 * them too. One store: the checks read the database with plain statements, the same on each.
 */
const HEAD = 16;
const factory = testDbFactories().at(-1)!;

for (const vm of ['move', 'wasm', 'evm'] as VmType[]) {
  describe(`verify of NFT owners and rich-list balances (${vm}, ${factory.name})`, () => {
    let sim: Simulator;
    let urls: SimulatorUrls;
    let store: { db: Db; dispose(): Promise<void> };
    let node: NodeRows;

    beforeAll(async () => {
      sim = createSimulator({
        vm,
        head: HEAD,
        chainId: `state-${vm}`,
        rpcPort: 0,
        restPort: 0,
        jsonRpcPort: 0,
      });
      urls = await sim.listen();
      store = await factory.create();
      await ingestFrom({
        db: store.db,
        vm,
        urls,
        untilHeight: HEAD,
        stages: { internalTx: false, richList: true },
      });
      node = await openTestNodeRows(store.db, urls);
    }, 120_000);

    afterAll(async () => {
      await node?.close();
      await store?.dispose();
      await sim?.close();
    });

    const verify = (sample: number | 'all', seed = 1) =>
      runVerify(store.db, node, { heights: [], accountPrefix: 'init', state: { sample, seed } });

    it('finds a clean index clean, names a wrong owner and a wrong balance with their routes', async () => {
      const counts = await store.db.query<{ nfts: number; balances: number }>(
        'SELECT (SELECT count(*)::int FROM nft) AS nfts, (SELECT count(*)::int FROM rich_list) AS balances',
      );
      const { nfts, balances } = counts.rows[0]!;
      expect(nfts).toBeGreaterThan(1);
      expect(balances).toBeGreaterThan(1);

      const all = await verify('all');
      expect(all.drifts).toEqual([]);
      expect(all.state).toEqual({
        nfts: { height: HEAD, checked: nfts },
        richList: { height: HEAD, checked: balances },
      });
      const sample = await verify(3, 7);
      expect(sample.drifts).toEqual([]);
      expect(sample.state).toMatchObject({ nfts: { checked: 3 }, richList: { checked: 3 } });

      const token = (
        await store.db.query<{ collection: string; token_id: string; owner: Buffer }>(
          `SELECT '0x' || encode(n.collection_addr, 'hex') AS collection, n.token_id, a.account AS owner
             FROM nft n JOIN account_dict a ON a.id = n.owner_id ORDER BY n.nft_id LIMIT 1`,
        )
      ).rows[0]!;
      const other = (
        await store.db.query<{ id: string; account: Buffer }>(
          'SELECT id::text, account FROM account_dict WHERE account <> $1 AND length(account) = $2 ORDER BY id LIMIT 1',
          [token.owner, token.owner.length],
        )
      ).rows[0]!;
      await store.db.query(
        `UPDATE nft SET owner_id = $1 WHERE collection_addr = decode($2, 'hex') AND token_id = $3`,
        [other.id, token.collection.slice(2), token.token_id],
      );
      const balance = (
        await store.db.query<{ denom: string; amount: string }>(
          `UPDATE rich_list SET amount = amount + 7
            WHERE (denom, account_id) = (SELECT denom, account_id FROM rich_list WHERE amount > 0 ORDER BY denom, account_id LIMIT 1)
            RETURNING denom, amount::text`,
        )
      ).rows[0]!;

      const found = (await verify('all')).drifts;
      expect(found).toEqual([
        {
          height: HEAD,
          kind: 'nft.owner',
          key: `${token.collection} ${token.token_id}`,
          route: `/indexer/nft/v1/tokens/by_collection/${token.collection}?token_id=${encodeURIComponent(token.token_id)}`,
          stored: toBech32(other.account, 'init'),
          node: toBech32(token.owner, 'init'),
        },
        expect.objectContaining({
          height: HEAD,
          kind: 'rich_list.balance',
          route: `/indexer/richlist/v1/${encodeURIComponent(balance.denom)}`,
          stored: balance.amount,
          node: String(BigInt(balance.amount) - 7n),
        }),
      ]);
      // A sample as large as the tables draws every row: the same two differences.
      expect((await verify(nfts + balances, 3)).drifts).toEqual(found);
    }, 120_000);
  });
}
