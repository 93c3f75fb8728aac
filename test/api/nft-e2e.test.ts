import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COLLECTIONS, nftOpAt, type NftPlanContext } from '../../src/sim/chain/nft-lifecycle.js';
import type { NftCollectionTruth, NftTokenTruth, TxTruth, VmType } from '../../src/sim/types.js';
import { nftNameKey } from '../../src/shared/nft-name.js';
import { testDbFactories } from '../helpers/db.js';
import { indexSimulator, type IndexedSimulator } from '../helpers/ingest.js';
import { createHarness, walk, type Harness } from './harness.js';

/**
 * End to end: the NFT workload of the simulator indexed by the real pipeline; every NFT route's
 * full walk (limits 1, 7, 1000, both directions) equals the simulator's truth, including burned
 * and re-minted tokens and each live token's tx history (derived from the simulator's closed-form
 * NFT plan: the txs whose operation names the token).
 */
const HEAD = Number(process.env.NFT_E2E_HEAD ?? 2_000);
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
const tokenKey = (addr: string, id: string) => `${addr}/${id}`;

describe.each(
  testDbFactories().flatMap((factory) =>
    (['move', 'wasm', 'evm'] as VmType[]).map((vm) => ({ factory, vm, name: `${factory.name}/${vm}` })),
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

  /** The same rows in the same order at every limit; reverse=false is the exact reverse. */
  async function walkAll<T>(path: string, key: string, query: Record<string, string> = {}): Promise<T[]> {
    let newest: T[] | undefined;
    for (const reverse of ['true', 'false']) {
      for (const limit of LIMITS) {
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

  it('has burns, re-mints and an IBC collection in the workload', () => {
    expect(collections.length).toBe(COLLECTIONS + 1);
    expect(collections.some((c) => c.originName !== '')).toBe(true);
    expect(tokens.length).toBeGreaterThan(50);
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
    for (const c of collections) {
      const want = tokens.filter((t) => t.collectionAddr === c.addr);
      for (const orderBy of ['token_id', 'height']) {
        const got = await walkAll<ApiToken>(`${NFT}/tokens/by_collection/${c.addr}`, 'tokens', {
          order_by: orderBy,
        });
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
    // Whole names, a prefix shared by many ("collection1" also matches 10, 11, …) and no match.
    const queries = [...collections.map((c) => c.name), 'collection1', 'SIM', 'no-such-collection'];
    // Sent without spaces or punctuation: the path segment is not percent-decoded (docs/api.md).
    for (const query of queries.map((q) => q.replace(/[^A-Za-z0-9]/g, '')).filter((q) => q !== '')) {
      const key = nftNameKey(query);
      const want = collections
        .filter((c) => nftNameKey(c.name).includes(key) || nftNameKey(c.originName).includes(key))
        .map((c) => c.addr)
        .sort();
      const got = await walkAll<ApiCollection>(`${NFT}/collections/by_name/${query}`, 'collections');
      expect(got.map((x) => x.object_addr).sort(), query).toEqual(want);
    }
  });

  it('/tokens/by_account and /collections/by_account equal the truth for every owner', async () => {
    const owners = [...new Set(tokens.map((t) => t.owner))];
    for (const owner of owners) {
      const want = tokens.filter((t) => t.owner === owner);
      const got = await walkAll<ApiToken>(`${NFT}/tokens/by_account/${owner}`, 'tokens');
      expect(got.map((t) => tokenKey(t.collection_addr, t.nft.token_id)).sort()).toEqual(
        want.map((t) => tokenKey(t.collectionAddr, t.tokenId)).sort(),
      );
      const keys = got.map((t) => [t.nft.token_id, t.height, t.collection_addr] as (string | number)[]);
      expect(keys).toEqual([...keys].sort((a, b) => compareKeys(b, a)));
      const cols = await walkAll<ApiCollection>(`${NFT}/collections/by_account/${owner}`, 'collections');
      expect(cols.map((c) => c.object_addr).sort()).toEqual(
        [...new Set(want.map((t) => t.collectionAddr))].sort(),
      );
    }
  });

  it('/tokens/by_account with collection_addr and token_id filters equals the truth', async () => {
    const owners = [...new Set(tokens.map((t) => t.owner))].slice(0, 4);
    for (const owner of owners) {
      const own = tokens.filter((t) => t.owner === owner);
      for (const collectionAddr of [...new Set(own.map((t) => t.collectionAddr))]) {
        const got = await walkAll<ApiToken>(`${NFT}/tokens/by_account/${owner}`, 'tokens', {
          collection_addr: collectionAddr,
        });
        expect(got.map((t) => t.nft.token_id).sort()).toEqual(
          own
            .filter((t) => t.collectionAddr === collectionAddr)
            .map((t) => t.tokenId)
            .sort(),
        );
      }
      const tokenId = own[0]!.tokenId;
      const byId = await walkAll<ApiToken>(`${NFT}/tokens/by_account/${owner}`, 'tokens', {
        token_id: tokenId,
      });
      expect(byId.map((t) => tokenKey(t.collection_addr, t.nft.token_id)).sort()).toEqual(
        own
          .filter((t) => t.tokenId === tokenId)
          .map((t) => tokenKey(t.collectionAddr, t.tokenId))
          .sort(),
      );
    }
  });

  it("each live token's /txs history is exactly the txs that operated on it (re-mints keep the old history)", async () => {
    const plan: NftPlanContext = {
      seed: indexed.sim.options.seed,
      accounts: ACCOUNTS,
      uriMutation: vm === 'move',
    };
    const addrOf = (collection: number | 'ibc') =>
      collection === 'ibc'
        ? collections.find((c) => c.originName !== '')!.addr
        : collections.find((c) => c.name === `Sim Collection ${collection}`)!.addr;
    const history = new Map<string, string[]>();
    txs.forEach((tx, g) => {
      const op = nftOpAt(plan, g);
      if (!op || op.kind === 'create-collection') return;
      // A Move transfer to the current owner emits no TransferEvent (object::transfer returns
      // early, as on chain): nothing in the tx names the token, so it is not in its history.
      if (vm === 'move' && op.kind === 'transfer' && op.from === op.to) return;
      const key = tokenKey(addrOf(op.kind === 'ibc-receive' ? 'ibc' : op.collection), op.tokenId);
      history.set(key, [...(history.get(key) ?? []), tx.hash]);
    });
    let remints = 0;
    for (const t of tokens) {
      const want = history.get(tokenKey(t.collectionAddr, t.tokenId)) ?? [];
      if (want.length > 4) remints += 1;
      // walkAll checks both directions at every limit and returns the newest first.
      const got = await walkAll<{ txhash: string }>(`${NFT}/txs/${t.collectionAddr}/${t.tokenId}`, 'txs');
      expect(got.map((x) => x.txhash).reverse(), tokenKey(t.collectionAddr, t.tokenId)).toEqual(want);
    }
    expect(remints).toBeGreaterThan(0);
  });
});

function compareKeys(a: (string | number)[], b: (string | number)[]): number {
  for (let i = 0; i < a.length; i++) {
    const [x, y] = [a[i]!, b[i]!];
    const d = typeof x === 'number' ? x - (y as number) : Buffer.compare(bytes(x), bytes(y as string));
    if (d !== 0) return d;
  }
  return 0;
}
