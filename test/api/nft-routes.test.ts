import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { heavySuiteVms, testDbFactories } from '../helpers/db.js';
import { createHarness, walk, type Harness } from './harness.js';
import { BY_NAME } from './nft-name-table.js';
import {
  compareBytes,
  NAMES,
  seedNfts,
  toBech32,
  type NftCollectionTruth,
  type NftSeed,
  type NftTokenTruth,
} from './nft-seed.js';

const NFT = '/indexer/nft/v1';
const b64 = (text: string) => Buffer.from(text).toString('base64');
const text = (items: unknown[]) => items.map((i) => JSON.stringify(i));

const byCollectionOrder = (a: NftCollectionTruth, b: NftCollectionTruth) =>
  a.height - b.height || compareBytes(a.addrHex, b.addrHex);
function byTokenOrder(orderBy: 'token_id' | 'height') {
  return (a: NftTokenTruth, b: NftTokenTruth) => {
    const byId = compareBytes(a.tokenId, b.tokenId);
    const first = orderBy === 'token_id' ? byId || a.height - b.height : a.height - b.height || byId;
    return first || compareBytes(a.collectionHex, b.collectionHex);
  };
}

/**
 * Every NFT list walked at limits 1, 7, 1000 in both directions equals the seeded truth. Each VM
 * once and each store once (heavySuiteVms): the NFT readers' SQL is the same on both stores; what
 * differs by VM is the address forms.
 */
describe.each(
  testDbFactories().flatMap((factory) =>
    heavySuiteVms(factory.name).map((vm) => ({ ...factory, vm, factory })),
  ),
)('NFT routes on $name ($vm)', ({ factory, vm }) => {
  let h: Harness;
  let seed: NftSeed;
  beforeAll(async () => {
    h = await createHarness(factory, { vm, blocks: 20 });
    seed = await seedNfts(h.db, h.chain);
  });
  afterAll(async () => {
    await h?.dispose();
  });

  /** Walks with every limit and direction; returns the first total. */
  const expectWalk = async (
    path: string,
    key: string,
    expectedAsc: unknown[],
    query: Record<string, string> = {},
  ) => {
    const totals = new Set<string>();
    for (const reverse of ['true', 'false']) {
      for (const limit of ['1', '7', '1000']) {
        const { items, total } = await walk(h, path, key, {
          ...query,
          'pagination.limit': limit,
          'pagination.reverse': reverse,
        });
        const want = reverse === 'true' ? [...expectedAsc].reverse() : expectedAsc;
        expect(text(items), `${path} ${limit} ${reverse}`).toEqual(text(want));
        totals.add(total);
      }
    }
    expect(totals.size).toBe(1);
    return [...totals][0];
  };

  it('the served OpenAPI document has the seven routes and the nft.* schemas', async () => {
    const doc = (await h.get('/swagger/doc.json')).json as {
      paths: Record<string, { get?: { responses?: Record<string, unknown> } }>;
      components: { schemas: Record<string, unknown> };
    };
    for (const name of ['nft.CollectionsResponse', 'nft.CollectionResponse', 'nft.NftsResponse']) {
      expect(doc.components.schemas[name], name).toBeDefined();
    }
    for (const path of [
      '/indexer/nft/v1/collections',
      '/indexer/nft/v1/collections/by_account/{account}',
      '/indexer/nft/v1/collections/by_name/{name}',
      '/indexer/nft/v1/collections/{collection_addr}',
      '/indexer/nft/v1/tokens/by_account/{account}',
      '/indexer/nft/v1/tokens/by_collection/{collection_addr}',
      '/indexer/nft/v1/txs/{collection_addr}/{token_id}',
    ]) {
      expect(doc.paths[path]?.get?.responses?.['200'], path).toBeDefined();
    }
  });

  it('/collections walks every collection in (height, address) order, exact JSON and total', async () => {
    const asc = [...seed.collections].sort(byCollectionOrder).map((c) => c.json);
    expect(await expectWalk(`${NFT}/collections`, 'collections', asc)).toBe(String(asc.length));
  });

  it('/collections/by_account lists the collections an owner holds tokens in', async () => {
    for (const owner of seed.owners) {
      const held = new Set(seed.tokens.filter((t) => t.owner === owner).map((t) => t.collectionHex));
      const asc = seed.collections
        .filter((c) => held.has(c.addrHex))
        .sort(byCollectionOrder)
        .map((c) => c.json);
      expect(asc.length).toBeGreaterThan(0);
      expect(await expectWalk(`${NFT}/collections/by_account/${owner}`, 'collections', asc)).toBe(
        String(asc.length),
      );
    }
    const stranger = h.chain.accounts[9]!;
    const res = await h.get(`${NFT}/collections/by_account/${stranger}`);
    expect(res.json).toEqual({
      collections: [],
      pagination: { previous_key: null, next_key: null, total: '0' },
    });
  });

  it('/collections/by_name answers the collections the spec table says, in walk order', async () => {
    for (const [query, names] of BY_NAME) {
      const wanted = names === 'all' ? NAMES : names;
      for (const name of wanted) expect(NAMES, `table entry for ${query}`).toContain(name);
      const asc = seed.collections
        .filter((c) => wanted.includes(c.name))
        .sort(byCollectionOrder)
        .map((c) => c.json);
      const path = `${NFT}/collections/by_name/${query}`;
      // Every limit for a few; one page each way for the rest (the matching is what varies).
      if (['---', 'badges', 'ats'].includes(query)) {
        expect(await expectWalk(path, 'collections', asc), query).toBe(String(asc.length));
        continue;
      }
      for (const reverse of [false, true]) {
        const res = await h.get(`${path}?pagination.limit=1000&pagination.reverse=${reverse}`);
        const page = res.json as { collections: unknown[]; pagination: { total: string } };
        expect(text(page.collections), query).toEqual(text(reverse ? [...asc].reverse() : asc));
        expect(page.pagination.total, query).toBe(String(asc.length));
      }
    }
    // JSON keys are ignored (integer keys answered), so the walk never repeats a page.
    const json = await h.get(
      `${NFT}/collections/by_name/badges?pagination.limit=1&pagination.key=${b64('{"height":99}')}`,
    );
    expect((json.json as { pagination: { next_key: string } }).pagination.next_key).toBe(b64('1'));
  });

  it('/collections/by_name: a name with a space as encodeURI sends it finds the collection; a malformed escape is a 400 naming name', async () => {
    const res = await h.get(`${NFT}/collections/by_name/${encodeURI('My Collection')}`);
    const names = (res.json as { collections: { collection: { name: string } }[] }).collections.map(
      (c) => c.collection.name,
    );
    expect(names.sort()).toEqual(['My Collection', 'my-collection 2']);
    for (const bad of ['%', '%zz', 'My%2', '%C3', '%FF', '%E2%80', 'a%C3%28']) {
      const answer = await h.app.inject({ url: `${NFT}/collections/by_name/${bad}` });
      expect(answer.statusCode, bad).toBe(400);
      expect(JSON.parse(answer.body), bad).toEqual({
        code: 3,
        message: `[INVALID_VALUE] invalid value for name: ${bad} (malformed percent-encoding)`,
        details: [],
      });
    }
    const withQuery = await h.app.inject({ url: `${NFT}/Collections/By_Name/%zz?pagination.limit=1` });
    expect(JSON.parse(withQuery.body).message).toBe(
      '[INVALID_VALUE] invalid value for name: %zz (malformed percent-encoding)',
    );
    // Every other route keeps the router's own answer.
    const elsewhere = await h.app.inject({ url: `${NFT}/collections/%zz` });
    expect(elsewhere.statusCode).toBe(400);
    expect(JSON.parse(elsewhere.body).message).toBe(`'${NFT}/collections/%zz' is not a valid url component`);
  });

  it('/collections/{addr}: hex, bech32 on 32-byte chains, 404 when unknown, "" for missing creators', async () => {
    for (const c of seed.collections) {
      const res = await h.get(`${NFT}/collections/0x${c.addrHex.toUpperCase().replace(/^0X/, '')}`);
      expect(res.status).toBe(200);
      expect(JSON.stringify(res.json)).toBe(JSON.stringify({ collection: c.json }));
      const bech = toBech32(Buffer.from(c.addrHex, 'hex'), 'init');
      expect((await h.get(`${NFT}/collections/${bech}`)).json).toEqual({ collection: c.json });
    }
    const res = await h.get(`${NFT}/collections/0x${seed.orphanCollectionHex}`);
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ code: 5, message: 'nft collection not found', details: [] });
  });

  it('/tokens/by_account walks by token_id and by height, with collection and token filters', async () => {
    for (const owner of seed.owners) {
      const mine = seed.tokens.filter((t) => t.owner === owner);
      for (const orderBy of ['token_id', 'height'] as const) {
        const asc = [...mine].sort(byTokenOrder(orderBy)).map((t) => t.json);
        const q = orderBy === 'token_id' ? {} : { order_by: ' HEIGHT ' };
        expect(await expectWalk(`${NFT}/tokens/by_account/${owner}`, 'tokens', asc, q)).toBe(
          String(asc.length),
        );
      }
      const col = mine[0]!.collectionHex;
      const inCol = mine
        .filter((t) => t.collectionHex === col)
        .sort(byTokenOrder('height'))
        .map((t) => t.json);
      expect(
        await expectWalk(`${NFT}/tokens/by_account/${owner}`, 'tokens', inCol, {
          collection_addr: `0x${col}`,
          order_by: 'height',
        }),
      ).toBe(String(inCol.length));
      const id = mine[0]!.tokenId;
      const withId = mine
        .filter((t) => t.tokenId === id)
        .sort(byTokenOrder('token_id'))
        .map((t) => t.json);
      expect(await expectWalk(`${NFT}/tokens/by_account/${owner}`, 'tokens', withId, { token_id: id })).toBe(
        String(withId.length),
      );
      // Past the end no row carries the total: it is still the owner's count.
      const past = await h.get(
        `${NFT}/tokens/by_account/${owner}?pagination.offset=${mine.length}&pagination.count_total=true`,
      );
      expect(past.json).toMatchObject({ tokens: [], pagination: { total: String(mine.length) } });
      const collections = `${NFT}/collections/by_account/${owner}?pagination.count_total=true`;
      const first = (await h.get(collections)).json as {
        collections: unknown[];
        pagination: { total: string };
      };
      const pastCollections = await h.get(`${collections}&pagination.offset=${first.collections.length}`);
      expect(pastCollections.json).toMatchObject({
        collections: [],
        pagination: { total: first.pagination.total },
      });
    }
  });

  it('/tokens/by_collection walks each collection (including one with no collection row)', async () => {
    const hexes = [...new Set(seed.tokens.map((t) => t.collectionHex))];
    for (const hex of hexes) {
      const mine = seed.tokens.filter((t) => t.collectionHex === hex);
      for (const orderBy of ['token_id', 'height'] as const) {
        const asc = [...mine].sort(byTokenOrder(orderBy)).map((t) => t.json);
        expect(
          await expectWalk(`${NFT}/tokens/by_collection/0x${hex}`, 'tokens', asc, { order_by: orderBy }),
        ).toBe(String(asc.length));
      }
    }
    const unknown = await h.get(`${NFT}/tokens/by_collection/0x${'ab'.repeat(20)}`);
    expect(unknown.json).toEqual({
      tokens: [],
      pagination: { previous_key: null, next_key: null, total: '0' },
    });
  });

  it('/txs/{collection}/{token_id} lists each live token history; burned and unknown tokens are empty', async () => {
    const bySeq = new Map(h.chain.txs.map((t) => [t.sequence, t.hash]));
    for (const token of seed.tokens.slice(0, 25)) {
      const asc = token.txSequences.map((s) => bySeq.get(s));
      for (const reverse of ['true', 'false']) {
        for (const limit of ['1', '7', '1000']) {
          const { items, total } = await walk(
            h,
            `${NFT}/txs/0x${token.collectionHex}/${encodeURIComponent(token.tokenId)}`,
            'txs',
            {
              'pagination.limit': limit,
              'pagination.reverse': reverse,
            },
          );
          const hashes = items.map((i) => (i as { txhash: string }).txhash);
          expect(hashes).toEqual(reverse === 'true' ? [...asc].reverse() : asc);
          expect(total).toBe(String(asc.length));
        }
      }
    }
    for (const path of [
      `0x${seed.burned.collectionHex}/${seed.burned.tokenId}`,
      `0x${seed.burned.collectionHex}/nope`,
    ]) {
      const res = await h.get(`${NFT}/txs/${path}`);
      expect(res.json).toEqual({ txs: [], pagination: { previous_key: null, next_key: null, total: '0' } });
    }
  });

  it('keys: integer offsets, cursors honoured, next_key only when more rows exist', async () => {
    const owner = seed.owners[0]!;
    const n = seed.tokens.filter((t) => t.owner === owner).length;
    const path = `${NFT}/tokens/by_account/${owner}`;
    const first = (await h.get(`${path}?pagination.limit=2`)).json as { pagination: Record<string, unknown> };
    expect(first.pagination).toEqual({ previous_key: null, next_key: b64('2'), total: String(n) });
    const second = (await h.get(`${path}?pagination.limit=2&pagination.key=${b64('2')}`)).json as {
      pagination: Record<string, unknown>;
    };
    expect(second.pagination.previous_key).toBe(b64('0'));
    expect((await h.get(`${path}?pagination.limit=${n}`)).json).toMatchObject({
      pagination: { next_key: null },
    });
    // A JSON cursor from a client switches to cursor keys; odd cursor values never fail.
    for (const odd of [
      '{"height":"x"}',
      '{"height":null}',
      '{"height":1.5}',
      '{"height":3,"token_id":7}',
      '{}',
      '{"sequence":3}',
    ]) {
      for (const route of [
        path,
        `${NFT}/collections`,
        `${NFT}/collections/by_account/${owner}`,
        `${NFT}/tokens/by_collection/0x${seed.tokens[0]!.collectionHex}`,
      ]) {
        const res = await h.app.inject({ url: `${route}?pagination.key=${encodeURIComponent(b64(odd))}` });
        expect(res.statusCode, `${route} ${odd}: ${res.body}`).toBe(200);
      }
    }
    // The reference's height cursor: rows strictly below the height.
    const res = await h.get(`${NFT}/collections?pagination.key=${encodeURIComponent(b64('{"height":4}'))}`);
    const heights = (res.json as { collections: { height: number }[] }).collections.map((c) => c.height);
    expect(heights).toEqual(
      seed.collections
        .filter((c) => c.height < 4)
        .map((c) => c.height)
        .sort((a, b) => b - a),
    );
  });

  it('past API_MAX_OFFSET the walk goes on with cursor keys, and every key is honoured', async () => {
    const app = await h.appWith({ API_MAX_OFFSET: '3' });
    for (const [path, key, expected] of [
      [
        `${NFT}/tokens/by_account/${seed.owners[1]}`,
        'tokens',
        seed.tokens.filter((t) => t.owner === seed.owners[1]).length,
      ],
      [`${NFT}/collections`, 'collections', seed.collections.length],
    ] as const) {
      let next: string | null = null;
      let seen = 0;
      const keys: string[] = [];
      do {
        const url = `${path}?pagination.limit=2${next ? `&pagination.key=${encodeURIComponent(next)}` : ''}`;
        const res = await app.inject({ url });
        expect(res.statusCode, res.body).toBe(200);
        const body = JSON.parse(res.body) as Record<string, unknown[]> & {
          pagination: { next_key: string | null };
        };
        seen += body[key]!.length;
        next = body.pagination.next_key;
        if (next) keys.push(Buffer.from(next, 'base64').toString());
      } while (next !== null);
      expect(seen).toBe(expected);
      expect(keys.slice(0, 1)).toEqual(['2']);
      expect(keys.slice(1).every((k) => k.startsWith('{'))).toBe(true);
    }
  });
});
