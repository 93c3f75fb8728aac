import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountBytesFromString, toBech32 } from '../../src/shared/address.js';
import { createBlockWriter, type BlockWriter } from '../../src/store/writers/block-writer.js';
import type { NftBlockRows, NftChange } from '../../src/store/writers/nft-rows.js';
import type { BlockRows } from '../../src/store/writers/rows.js';
import { testDbFactories } from '../helpers/db.js';
import { createHarness, type Harness } from './harness.js';

/*
 * The NFT page memory (docs/api.md §1.9.1) holds token and collection answers and token histories
 * whose rows change in place. Every kind of change the NFT collectors write — transfer, burn,
 * re-mint, URI update, collection rename (an IBC receipt's origin name) — is written through the
 * real block writer under a running API whose pages are held (each page read three times: held
 * from its second read, served from memory on the third), and the very next read of every page
 * must show the change: byte for byte what an API without the memory answers, and the change
 * itself, named. A Move token's history also grows with txs that only name its object: a block
 * without NFT changes must be seen there too.
 */

const acct = (n: number) => Buffer.alloc(20, n);
const owner = (n: number) => toBech32(acct(n), 'init');
const COLL = Buffer.alloc(32, 0xc0);
const COLL_HEX = `0x${COLL.toString('hex')}`;
const objectOf = (tokenId: string) => Buffer.alloc(32, 0x40 + Number(tokenId));
const ref = (tokenId: string) => ({ collection: COLL, tokenId });

type Vm = 'move' | 'wasm';

/** One block of one tx per change; on Move each tx names the objects it touches (their history). */
function block(vm: Vm, height: number, nft: Partial<NftBlockRows>, tokens: string[][]): BlockRows {
  return {
    block: {
      height,
      hash: Buffer.alloc(32, height),
      timestamp: `2025-01-01T00:00:${String(height).padStart(2, '0')}Z`,
      blockTimeMs: 1000,
      proposer: 'initvaloper1xyz',
      gasUsed: '1',
      gasWanted: '1',
      txCount: tokens.length,
      totalFee: '[]',
    },
    txs: tokens.map((ids, i) => ({
      hash: Buffer.alloc(32, height * 16 + i),
      height,
      signer: acct(1),
      accounts: [
        acct(1),
        ...(vm === 'move'
          ? ids.map((id) => accountBytesFromString(`0x${objectOf(id).toString('hex')}`, ''))
          : []),
      ],
      msgTypes: ['x.Msg'],
      data: `{"height":"${height}","tx":${i}}`,
    })),
    evmTxs: [],
    nft: { collections: [], changes: [], originNames: [], ...nft },
  };
}

const mint = (
  vm: Vm,
  tokenId: string,
  to: number,
  txIndex: number,
  uri = `ipfs://${tokenId}`,
): NftChange => ({
  kind: 'mint',
  ref: ref(tokenId),
  objectAddr: vm === 'move' ? objectOf(tokenId) : null,
  owner: acct(to),
  uri,
  txIndex,
});

/** Every NFT route, with filters and both orders. */
function urls(): string[] {
  const nft = '/indexer/nft/v1';
  const byCollection = `${nft}/tokens/by_collection/${COLL_HEX}`;
  return [
    `${nft}/tokens/by_account/${owner(2)}`,
    `${nft}/tokens/by_account/${owner(2)}?order_by=height&pagination.reverse=false`,
    `${nft}/tokens/by_account/${owner(3)}?collection_addr=${COLL_HEX}&pagination.limit=1`,
    `${nft}/tokens/by_account/${owner(3)}?token_id=1`,
    byCollection,
    `${byCollection}?order_by=height`,
    `${byCollection}?order_by=token_id&pagination.reverse=false&pagination.limit=2`,
    `${byCollection}?token_id=2`,
    `${nft}/collections`,
    `${nft}/collections/by_account/${owner(2)}`,
    `${nft}/collections/by_account/${owner(3)}`,
    `${nft}/collections/by_name/cats`,
    `${nft}/collections/by_name/felines`,
    `${nft}/collections/${COLL_HEX}`,
    `${nft}/txs/${COLL_HEX}/1`,
    `${nft}/txs/${COLL_HEX}/2?pagination.reverse=false`,
  ];
}

async function answer(app: FastifyInstance, url: string): Promise<string> {
  const res = await app.inject({ method: 'GET', url });
  expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
  return res.body;
}

async function pageHits(app: FastifyInstance): Promise<number> {
  const text = (await app.inject({ url: '/metrics' })).body;
  const line = text
    .split('\n')
    .find(
      (l) =>
        l.startsWith('rollup_indexer_api_row_cache_rows_total{') &&
        l.includes('table="nft_page"') &&
        l.includes('result="hit"'),
    );
  return line ? Number(line.split(' ').at(-1)) : 0;
}

const tokenIds = (body: string) =>
  (JSON.parse(body) as { tokens: { nft: { token_id: string } }[] }).tokens.map((t) => t.nft.token_id);

describe.each(testDbFactories())('NFT page memory on $name', (factory) => {
  describe.each<Vm>(['move', 'wasm'])('%s', (vm) => {
    let h: Harness;
    let off: FastifyInstance;
    let writer: BlockWriter;
    let height = 0;
    const write = (nft: Partial<NftBlockRows>, tokens: string[][]) =>
      writer.write([block(vm, ++height, nft, tokens)]);

    /** Each page now, first read (must be current), then twice more: held, then served from memory. */
    async function readAll(): Promise<Map<string, string>> {
      const seen = new Map<string, string>();
      for (const url of urls()) {
        const fresh = await answer(off, url);
        const first = await answer(h.app, url);
        expect(first, url).toBe(fresh);
        expect(await answer(h.app, url), url).toBe(fresh);
        expect(await answer(h.app, url), url).toBe(fresh);
        seen.set(url, first);
      }
      return seen;
    }

    beforeAll(async () => {
      h = await createHarness(factory, { vm, blocks: 1, seed: false });
      off = await h.appWith({ API_ROW_CACHE_MB: '0' });
      writer = await createBlockWriter(h.db);
      await write(
        {
          collections: [
            { addr: COLL, height: 1, timestamp: '2025-01-01T00:00:01Z', name: 'Cats', creator: acct(9) },
          ],
          changes: [mint(vm, '1', 2, 0), mint(vm, '2', 2, 1), mint(vm, '3', 3, 2)],
        },
        [['1'], ['2'], ['3']],
      );
    }, 120_000);
    afterAll(async () => h?.dispose());

    it('serves held pages, and each change the collectors write is seen by the next read', async () => {
      const before = await readAll();
      const hits = await pageHits(h.app);
      // Held pages were served (the third read of each of the 16 pages).
      expect(hits).toBeGreaterThanOrEqual(urls().length);
      const nft = '/indexer/nft/v1';
      const collection = `${nft}/tokens/by_collection/${COLL_HEX}`;

      // Transfer: token 1 from owner 2 to owner 3.
      await write({ changes: [{ kind: 'transfer', ref: ref('1'), owner: acct(3), txIndex: 0 }] }, [['1']]);
      const transferred = await readAll();
      expect(tokenIds(transferred.get(`${nft}/tokens/by_account/${owner(2)}`)!)).toEqual(['2']);
      expect(tokenIds(transferred.get(`${nft}/tokens/by_account/${owner(3)}?token_id=1`)!)).toEqual(['1']);
      expect(transferred.get(`${nft}/txs/${COLL_HEX}/1`)).not.toBe(before.get(`${nft}/txs/${COLL_HEX}/1`));
      expect(await pageHits(h.app)).toBeGreaterThan(hits);

      // URI update of token 3.
      await write({ changes: [{ kind: 'uri', ref: ref('3'), uri: 'ipfs://new-3', txIndex: 0 }] }, [['3']]);
      const updated = await readAll();
      expect(updated.get(collection)).toContain('"uri":"ipfs://new-3"');
      expect(transferred.get(collection)).not.toContain('ipfs://new-3');

      // Burn of token 2: gone from its owner's and its collection's lists; its history is empty.
      await write({ changes: [{ kind: 'burn', ref: ref('2'), txIndex: 0 }] }, [['2']]);
      const burned = await readAll();
      expect(tokenIds(burned.get(collection)!)).toEqual(['3', '1']);
      expect(tokenIds(burned.get(`${collection}?token_id=2`)!)).toEqual([]);
      expect(JSON.parse(burned.get(`${nft}/txs/${COLL_HEX}/2?pagination.reverse=false`)!)).toMatchObject({
        txs: [],
      });
      expect(burned.get(`${nft}/collections/${COLL_HEX}`)).toContain('"length":2');

      // Re-mint of token 2 to owner 3 with another URI.
      await write({ changes: [mint(vm, '2', 3, 0, 'ipfs://again-2')] }, [['2']]);
      const reminted = await readAll();
      expect(tokenIds(reminted.get(`${collection}?token_id=2`)!)).toEqual(['2']);
      expect(reminted.get(`${collection}?token_id=2`)).toContain('"uri":"ipfs://again-2"');
      expect(reminted.get(`${collection}?token_id=2`)).toContain(`"owner":"${owner(3)}"`);
      expect(reminted.get(`${nft}/collections/by_account/${owner(2)}`)).toContain('"collections":[]');
      expect(reminted.get(`${nft}/txs/${COLL_HEX}/2?pagination.reverse=false`)).not.toContain('"txs":[]');

      // Collection rename: an IBC receipt gives it an origin name.
      await write({ originNames: [{ l2Name: 'Cats', l1Name: 'Felines' }] }, []);
      const renamed = await readAll();
      expect(renamed.get(collection)).toContain('"collection_origin_name":"Felines"');
      expect(renamed.get(`${nft}/collections/${COLL_HEX}`)).toContain('"origin_name":"Felines"');
      expect(reminted.get(`${nft}/collections/by_name/felines`)).toContain('"collections":[]');
      expect(renamed.get(`${nft}/collections/by_name/felines`)).toContain(COLL_HEX);

      // A block with no NFT change: on Move a tx naming token 1's object (a marketplace offer)
      // joins its history, though no NFT table moved.
      await write({}, [['1']]);
      const offered = await readAll();
      const history = `${nft}/txs/${COLL_HEX}/1`;
      if (vm === 'move') expect(offered.get(history)).not.toBe(renamed.get(history));
      else expect(offered.get(history)).toBe(renamed.get(history));
    }, 300_000);
  });
});
