import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COLLECTIONS, nftOpAt, rootOf, type NftPlanContext } from '../../src/sim/chain/nft-lifecycle.js';
import type { NftCollectionTruth, NftTokenTruth, TxTruth } from '../../src/sim/types.js';
import { heavySuiteVms, testDbFactories } from '../helpers/db.js';
import { indexSimulator, type IndexedSimulator } from '../helpers/ingest.js';
import {
  expectIngestMatchesTruth,
  expectNftMatchesTruth,
  expectNftTxEdgesMatchEvents,
} from '../helpers/truth.js';
import { createHarness, walk, type Harness } from './harness.js';

/**
 * End to end: the NFT workload of the simulator indexed by the real pipeline; every NFT route's
 * full walk (limits 1, 7, 1000, both directions) equals the simulator's truth, including burned
 * and re-minted tokens and each live token's tx history (derived from the simulator's closed-form
 * NFT plan: the txs whose operation names the token, plus on Move the marketplace offers its
 * truth records as naming the token), walked by cursor and by offset in both orders.
 *
 * The same chain proves the NFT ingest itself first: the NFT tables, the NFT tx edges and every
 * other table equal the truth (what test/ingest/nft.test.ts indexed a chain of its own for, per VM
 * and store, before this file did both on one chain).
 */
/**
 * Long enough for every kind of lifecycle event, each counted below: re-mints begin past block 400
 * (slot REMINT of the default share), so 600 blocks (~890 txs) hold four, with six burns, 34 IBC
 * receipts, 63 live tokens and (Move) 22 offered tokens. No list comes near a page of 1,000, and
 * ingest and the walks cost in proportion to the txs: a longer chain proves nothing more.
 */
const HEAD = Number(process.env.NFT_E2E_HEAD ?? 600);
const ACCOUNTS = 16;
const NFT = '/indexer/nft/v1';
const LIMITS = ['1', '7', '1000'];

interface ApiCollection {
  object_addr: string;
  collection: {
    creator: string;
    name: string;
    origin_name: string;
    nfts: { handle: string; length: number };
  };
  height: number;
}
interface ApiToken {
  collection_addr: string;
  collection_name: string;
  owner: string;
  nft: { token_id: string; uri: string };
  height: number;
}

const bytes = (s: string) => Buffer.from(s, 'utf8');
/** The items by `size`, largest first (the list that pages the most comes first). */
const largestFirst = <T>(items: readonly T[], size: (item: T) => number): T[] =>
  [...items].sort((a, b) => size(b) - size(a));
const tokenKey = (addr: string, id: string) => `${addr}/${id}`;

describe.each(
  testDbFactories().flatMap((factory) =>
    heavySuiteVms(factory.name).map((vm) => ({ factory, vm, name: `${factory.name}/${vm}` })),
  ),
)('NFT API against the ingested simulator ($name)', ({ factory, vm }) => {
  let h: Harness;
  let indexed: IndexedSimulator;
  let collections: NftCollectionTruth[];
  let tokens: NftTokenTruth[];
  let txs: TxTruth[];
  beforeAll(async () => {
    const chainId = `nft-e2e-${vm}-1`;
    h = await createHarness(factory, { vm, blocks: 0, seed: false, env: { CHAIN_ID: chainId } });
    indexed = await indexSimulator({
      db: h.db,
      vm,
      head: HEAD,
      txsPerBlock: '0-3',
      sim: { chainId, accounts: ACCOUNTS },
    });
    collections = indexed.sim.truth.nftCollections(HEAD);
    tokens = indexed.sim.truth.nftTokens(HEAD);
    txs = Array.from({ length: HEAD }, (_, i) => indexed.sim.truth.block(i + 1).txs).flat();
  }, 900_000);
  afterAll(async () => {
    await indexed?.close();
    await h?.dispose();
  });

  /**
   * The same rows in the same order at every limit; reverse=false is the exact reverse. Paging is
   * one code path per route and order: each test walks its largest list at every limit (`paged`)
   * and the others in one page each way.
   */
  async function walkAll<T>(
    path: string,
    key: string,
    query: Record<string, string> = {},
    paged = true,
  ): Promise<T[]> {
    let newest: T[] | undefined;
    for (const reverse of ['true', 'false']) {
      for (const limit of paged ? LIMITS : ['1000']) {
        const { items, total } = await walk(h, path, key, {
          ...query,
          'pagination.limit': limit,
          'pagination.reverse': reverse,
        });
        const ordered = (reverse === 'true' ? items : [...items].reverse()) as T[];
        if (newest === undefined) newest = ordered;
        expect(ordered, `${path} limit ${limit} reverse ${reverse}`).toEqual(newest);
        expect(total, `${path} total`).toBe(String(items.length));
      }
    }
    return newest ?? [];
  }

  it(
    `indexes ${HEAD} blocks: the NFT tables and tx edges, and every other table, equal the truth`,
    { timeout: 300_000 },
    async () => {
      await expectNftMatchesTruth(h.db, indexed.sim, HEAD);
      expect(await expectNftTxEdgesMatchEvents(h.db, vm)).toBeGreaterThan(HEAD / 20);
      await expectIngestMatchesTruth(h.db, indexed.sim, HEAD);
    },
  );

  /** The simulator's closed-form NFT plan of this chain (the operation of each tx). */
  const planOf = (): NftPlanContext => ({
    seed: indexed.sim.options.seed,
    accounts: ACCOUNTS,
    uriMutation: vm === 'move',
  });

  it('has burns, re-mints and an IBC collection in the workload', () => {
    expect(collections.length).toBe(COLLECTIONS + 1);
    expect(collections.some((c) => c.originName !== '')).toBe(true);
    expect(tokens.length).toBeGreaterThan(50);
    // Counted from the plan: the chain must be long enough to hold several of each.
    const ops = txs.map((_, g) => nftOpAt(planOf(), g));
    expect(ops.filter((op) => op?.kind === 'burn').length).toBeGreaterThan(2);
    expect(ops.filter((op) => op?.kind === 'mint' && rootOf(op.slot) !== op.slot).length).toBeGreaterThan(2);
    expect(ops.filter((op) => op?.kind === 'ibc-receive').length).toBeGreaterThan(10);
  });

  it('/collections and /collections/{addr} equal the truth', async () => {
    const listed = await walkAll<ApiCollection>(`${NFT}/collections`, 'collections');
    const asTruth = (c: ApiCollection) => ({
      addr: c.object_addr,
      name: c.collection.name,
      creator: c.collection.creator,
      originName: c.collection.origin_name,
      nftCount: c.collection.nfts.length,
    });
    expect(listed.map(asTruth).sort((a, b) => (a.addr < b.addr ? -1 : 1))).toEqual(collections);
    for (let i = 1; i < listed.length; i++) {
      expect(listed[i - 1]!.height).toBeGreaterThanOrEqual(listed[i]!.height);
    }
    for (const c of listed) {
      expect((await h.get(`${NFT}/collections/${c.object_addr}`)).json).toEqual({ collection: c });
    }
  });

  it('/tokens/by_collection (both orders) and /collections/by_name equal the truth', async () => {
    const bySize = largestFirst(collections, (c) => tokens.filter((t) => t.collectionAddr === c.addr).length);
    for (const [i, c] of bySize.entries()) {
      const want = tokens.filter((t) => t.collectionAddr === c.addr);
      for (const orderBy of ['token_id', 'height']) {
        const got = await walkAll<ApiToken>(
          `${NFT}/tokens/by_collection/${c.addr}`,
          'tokens',
          { order_by: orderBy },
          i === 0,
        );
        const asTruth = got.map((t) => ({
          collectionAddr: t.collection_addr,
          tokenId: t.nft.token_id,
          owner: t.owner,
          uri: t.nft.uri,
        }));
        expect([...asTruth].sort((a, b) => Buffer.compare(bytes(a.tokenId), bytes(b.tokenId)))).toEqual(
          [...want].sort((a, b) => Buffer.compare(bytes(a.tokenId), bytes(b.tokenId))),
        );
        expect(got.every((t) => t.collection_name === c.name)).toBe(true);
        const keys = got.map((t) => (orderBy === 'height' ? [t.height, t.nft.token_id] : [t.nft.token_id]));
        expect(keys).toEqual([...keys].sort((a, b) => compareKeys(b, a)));
      }
    }
  });

  it('/collections/by_name lists exactly the collections whose name or origin name contains the query', async () => {
    // The spec's key (letters, marks and digits kept, lower-cased) restricted to ASCII, where it
    // is plain [a-z0-9]: the simulator's names are ASCII (checked), the queries made so. Written
    // here rather than taken from the server's function (Unicode: test/api/nft-name-table.ts).
    const asciiKey = (text: string) => text.replace(/[^A-Za-z0-9]/g, '').toLowerCase();
    for (const c of collections) expect(`${c.name}${c.originName}`).toMatch(/^[\x20-\x7e]*$/);
    // Whole names, a prefix shared by many ("collection1" also matches 10, 11, …) and no match.
    const queries = [...collections.map((c) => c.name), 'collection1', 'SIM', 'no-such-collection'];
    // Sent whole, percent-encoded as a browser client does: the segment is decoded (docs/api.md).
    for (const query of queries.filter((q) => asciiKey(q) !== '')) {
      const key = asciiKey(query);
      const want = collections
        .filter((c) => asciiKey(c.name).includes(key) || asciiKey(c.originName).includes(key))
        .map((c) => c.addr)
        .sort();
      const path = `${NFT}/collections/by_name/${encodeURIComponent(query)}`;
      // 'collection1' matches the most: the one walked at every limit.
      const got = await walkAll<ApiCollection>(path, 'collections', {}, query === 'collection1');
      expect(got.map((x) => x.object_addr).sort(), query).toEqual(want);
    }
  });

  it('/tokens/by_account and /collections/by_account equal the truth for every owner', async () => {
    const owners = largestFirst(
      [...new Set(tokens.map((t) => t.owner))],
      (o) => tokens.filter((t) => t.owner === o).length,
    );
    for (const [i, owner] of owners.entries()) {
      const want = tokens.filter((t) => t.owner === owner);
      const got = await walkAll<ApiToken>(`${NFT}/tokens/by_account/${owner}`, 'tokens', {}, i === 0);
      expect(got.map((t) => tokenKey(t.collection_addr, t.nft.token_id)).sort()).toEqual(
        want.map((t) => tokenKey(t.collectionAddr, t.tokenId)).sort(),
      );
      const keys = got.map((t) => [t.nft.token_id, t.height, t.collection_addr] as (string | number)[]);
      expect(keys).toEqual([...keys].sort((a, b) => compareKeys(b, a)));
      const cols = await walkAll<ApiCollection>(
        `${NFT}/collections/by_account/${owner}`,
        'collections',
        {},
        i === 0,
      );
      expect(cols.map((c) => c.object_addr).sort()).toEqual(
        [...new Set(want.map((t) => t.collectionAddr))].sort(),
      );
    }
  });

  it('/tokens/by_account with collection_addr and token_id filters equals the truth', async () => {
    const owners = [...new Set(tokens.map((t) => t.owner))].slice(0, 4);
    for (const [i, owner] of owners.entries()) {
      const own = tokens.filter((t) => t.owner === owner);
      for (const [j, collectionAddr] of [...new Set(own.map((t) => t.collectionAddr))].entries()) {
        const got = await walkAll<ApiToken>(
          `${NFT}/tokens/by_account/${owner}`,
          'tokens',
          { collection_addr: collectionAddr },
          i === 0 && j === 0,
        );
        expect(got.map((t) => t.nft.token_id).sort()).toEqual(
          own
            .filter((t) => t.collectionAddr === collectionAddr)
            .map((t) => t.tokenId)
            .sort(),
        );
      }
      const tokenId = own[0]!.tokenId;
      const byId = await walkAll<ApiToken>(
        `${NFT}/tokens/by_account/${owner}`,
        'tokens',
        { token_id: tokenId },
        i === 0,
      );
      expect(byId.map((t) => tokenKey(t.collection_addr, t.nft.token_id)).sort()).toEqual(
        own
          .filter((t) => t.tokenId === tokenId)
          .map((t) => tokenKey(t.collectionAddr, t.tokenId))
          .sort(),
      );
    }
  });

  /** Offset pages (`pagination.offset`, keys ignored) in one order, until a short page; oldest first. */
  async function walkOffsets(path: string, limit: number, reverse: string, total: string) {
    const items: Array<{ txhash: string }> = [];
    for (let offset = 0; ; offset += limit) {
      const query = `pagination.limit=${limit}&pagination.offset=${offset}&pagination.reverse=${reverse}`;
      const res = await h.get(`${path}?${query}`);
      expect(res.status, res.body).toBe(200);
      const body = res.json as { txs: Array<{ txhash: string }>; pagination: { total: string } };
      expect(body.pagination.total, `${path} ${query} total`).toBe(total);
      items.push(...body.txs);
      if (body.txs.length < limit) return reverse === 'true' ? items.reverse() : items;
      // An offset that is not applied would repeat full pages for ever.
      expect(items.length, `${path} ${query}: more rows than the total`).toBeLessThanOrEqual(Number(total));
    }
  }

  /**
   * A token's history from the simulator's own plan and truth, oldest first: the txs whose NFT
   * operation names it and, on Move only (docs/api.md §0.10), the txs that name its object
   * without an NFT event (marketplace offers, TxTruth.nftMentions).
   */
  function expectedHistories(): Map<string, string[]> {
    const plan = planOf();
    const addrOf = (collection: number | 'ibc') =>
      collection === 'ibc'
        ? collections.find((c) => c.originName !== '')!.addr
        : collections.find((c) => c.name === `Sim Collection ${collection}`)!.addr;
    const history = new Map<string, string[]>();
    const add = (key: string, hash: string) => history.set(key, [...(history.get(key) ?? []), hash]);
    txs.forEach((tx, g) => {
      if (vm === 'move')
        for (const m of tx.nftMentions ?? []) add(tokenKey(m.collectionAddr, m.tokenId), tx.hash);
      else expect(tx.nftMentions, 'offers are a Move workload').toBeUndefined();
      const op = nftOpAt(plan, g);
      if (!op || op.kind === 'create-collection') return;
      // A Move transfer to the current owner emits no TransferEvent (object::transfer returns
      // early, as on chain): nothing in the tx names the token, so it is not in its history.
      if (vm === 'move' && op.kind === 'transfer' && op.from === op.to) return;
      add(tokenKey(addrOf(op.kind === 'ibc-receive' ? 'ibc' : op.collection), op.tokenId), tx.hash);
    });
    return history;
  }

  // Every live token's history in one page; the pagination of that route (cursor at every limit,
  // offsets, both orders) on the tokens that stress it: the longest histories, a re-minted token
  // and (Move) an offered one. Paging is one code path for every token: walking all of them ~10
  // ways cost over a minute of CPU per chain and proved nothing more.
  it(
    "each live token's /txs history equals the truth, by cursor and by offset, both orders (re-mints keep the old history; on Move offers too)",
    { timeout: 300_000 },
    async () => {
      const history = expectedHistories();
      const offers = new Set(
        txs.flatMap((x) => (x.nftMentions ?? []).map((m) => tokenKey(m.collectionAddr, m.tokenId))),
      );
      const keyOf = (t: NftTokenTruth) => tokenKey(t.collectionAddr, t.tokenId);
      const wantOf = (t: NftTokenTruth) => history.get(keyOf(t)) ?? [];
      const reminted = tokens.filter((t) => wantOf(t).length > 4);
      const offered = tokens.filter((t) => offers.has(keyOf(t)));
      expect(reminted.length).toBeGreaterThan(0);
      // On Move the offers make histories the NFT events alone would not (the walk tells them apart).
      if (vm === 'move') expect(offered.length).toBeGreaterThan(10);
      for (const t of tokens) {
        const path = `${NFT}/txs/${t.collectionAddr}/${t.tokenId}`;
        const page = await walk(h, path, 'txs', {
          'pagination.limit': '1000',
          'pagination.reverse': 'false',
        });
        expect(
          page.items.map((x) => (x as { txhash: string }).txhash),
          keyOf(t),
        ).toEqual(wantOf(t));
        expect(page.total, `${keyOf(t)} total`).toBe(String(wantOf(t).length));
      }
      const longest = [...tokens].sort((a, b) => wantOf(b).length - wantOf(a).length).slice(0, 3);
      const paged = new Set([...longest, reminted[0]!, ...offered.slice(0, 1)]);
      for (const t of paged) {
        const want = wantOf(t);
        const path = `${NFT}/txs/${t.collectionAddr}/${t.tokenId}`;
        // walkAll checks both directions at every limit and returns the newest first.
        const got = await walkAll<{ txhash: string }>(path, 'txs');
        expect(got.map((x) => x.txhash).reverse(), keyOf(t)).toEqual(want);
        for (const reverse of ['true', 'false']) {
          for (const limit of [2, 7]) {
            const pages = await walkOffsets(path, limit, reverse, String(want.length));
            expect(
              pages.map((x) => x.txhash),
              `${keyOf(t)} offset pages of ${limit}, reverse ${reverse}`,
            ).toEqual(want);
          }
        }
      }
    },
  );

  it('/txs without count_total answers total "0"; a burned token answers an empty page', async () => {
    const t = tokens[0]!;
    const res = await h.get(`${NFT}/txs/${t.collectionAddr}/${t.tokenId}?pagination.count_total=false`);
    const body = res.json as { txs: unknown[]; pagination: { total: string } };
    expect(body.txs.length).toBeGreaterThan(0);
    expect(body.pagination.total).toBe('0');
    const plan = planOf();
    const burned = txs
      .map((_, g) => nftOpAt(plan, g))
      .find(
        (op) =>
          op?.kind === 'burn' &&
          !tokens.some(
            (x) => x.tokenId === op.tokenId && x.collectionAddr === addrOfCollection(op.collection),
          ),
      );
    expect(burned).toBeDefined();
    if (burned?.kind !== 'burn') return;
    const gone = await h.get(`${NFT}/txs/${addrOfCollection(burned.collection)}/${burned.tokenId}`);
    expect(gone.json).toEqual({ txs: [], pagination: { previous_key: null, next_key: null, total: '0' } });
  });

  const addrOfCollection = (c: number) => collections.find((x) => x.name === `Sim Collection ${c}`)!.addr;
});

function compareKeys(a: (string | number)[], b: (string | number)[]): number {
  for (let i = 0; i < a.length; i++) {
    const [x, y] = [a[i]!, b[i]!];
    const d = typeof x === 'number' ? x - (y as number) : Buffer.compare(bytes(x), bytes(y as string));
    if (d !== 0) return d;
  }
  return 0;
}
