import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/store/driver/db.js';
import { testDbFactories } from '../helpers/db.js';
import { createHarness, type Harness } from './harness.js';
import { buildChain, MSG_TYPES, seedDb, type SeedChain, type SeedVm } from './seed.js';

/*
 * The row cache (API_ROW_CACHE_MB, on by default) changes how list pages are read, never what
 * they say: every list route answers byte for byte what the single-statement read (the cache off)
 * answers, on a cold cache and a warm one; a store reset under the running API is served from
 * the new store; and rows held from an earlier page survive the reused socket buffer.
 */

/** The list routes over sequence tables, for a seeded chain (evm: the receipts' routes too). */
function listUrls(chain: SeedChain): string[] {
  const signer = chain.txs[0]!.signer;
  const busy = chain.accounts[0]!;
  const height = chain.txs[Math.floor(chain.txs.length / 2)]!.height;
  const [send, other] = MSG_TYPES;
  const cosmos = [
    '/indexer/tx/v1/txs?pagination.limit=7',
    '/indexer/tx/v1/txs?pagination.limit=7&pagination.reverse=false',
    '/indexer/tx/v1/txs?pagination.limit=4&pagination.offset=5',
    `/indexer/tx/v1/txs?msgs=${send}&msgs=${other}&pagination.limit=6`,
    `/indexer/tx/v1/txs/by_account/${busy}?pagination.limit=5`,
    `/indexer/tx/v1/txs/by_account/${signer}?is_signer=true&pagination.reverse=false`,
    `/indexer/tx/v1/txs/by_account/${busy}?msgs=${send}&pagination.limit=3`,
    `/indexer/tx/v1/txs/by_height/${height}`,
    `/indexer/tx/v1/txs/by_height/${height}?msgs=${other}`,
    '/indexer/tx/v1/txs?pagination.limit=1000',
  ];
  if (chain.vm !== 'evm') return cosmos;
  const evmHeight = chain.evmTxs[0]!.height;
  return [
    ...cosmos,
    '/indexer/tx/v1/evm-txs?pagination.limit=7',
    '/indexer/tx/v1/evm-txs?pagination.limit=4&pagination.offset=3&pagination.reverse=false',
    `/indexer/tx/v1/evm-txs/by_account/${busy}?pagination.limit=5`,
    `/indexer/tx/v1/evm-txs/by_height/${evmHeight}`,
  ];
}

async function raw(app: FastifyInstance, url: string): Promise<Buffer> {
  const res = await app.inject({ method: 'GET', url });
  expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
  return res.rawPayload;
}

/** Every page of a list, following next_key, as raw bodies. */
async function allPages(app: FastifyInstance, url: string): Promise<Buffer[]> {
  const pages: Buffer[] = [];
  let next: string | null = url;
  while (next !== null) {
    const body = await raw(app, next);
    pages.push(body);
    const key = (JSON.parse(body.toString()) as { pagination: { next_key: string | null } }).pagination
      .next_key;
    next = key === null ? null : `${url}&pagination.key=${encodeURIComponent(key)}`;
    expect(pages.length).toBeLessThan(200);
  }
  return pages;
}

/** Empties every table but the migrations' record: the store an operator resets under the API. */
async function resetStore(db: Db): Promise<void> {
  const { rows } = await db.query<{ name: string }>(
    "SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'schema_migrations'",
  );
  await db.exec(`TRUNCATE ${rows.map((r) => `"${r.name}"`).join(', ')} RESTART IDENTITY`);
}

const VMS: SeedVm[] = ['move', 'wasm', 'evm'];

describe.each(testDbFactories())('row cache on $name', (factory) => {
  describe.each(VMS)('%s chain', (vm) => {
    let h: Harness;
    let off: FastifyInstance;
    beforeAll(async () => {
      h = await createHarness(factory, { vm, blocks: 40 });
      off = await h.appWith({ API_ROW_CACHE_MB: '0' });
    });
    afterAll(async () => {
      await h?.dispose();
    });

    it('every list route answers as without the cache, cold and warm', async () => {
      for (const url of listUrls(h.chain)) {
        const expected = await raw(off, url);
        expect((await raw(h.app, url)).equals(expected), `${url} (cold)`).toBe(true);
        expect((await raw(h.app, url)).equals(expected), `${url} (second read: rows held)`).toBe(true);
        expect((await raw(h.app, url)).equals(expected), `${url} (warm)`).toBe(true);
      }
      const pages = await allPages(off, '/indexer/tx/v1/txs?pagination.limit=9');
      expect(pages.length).toBeGreaterThan(3);
      for (let i = 0; i < 3; i += 1) {
        const cached = await allPages(h.app, '/indexer/tx/v1/txs?pagination.limit=9');
        expect(cached.map((p) => p.toString())).toEqual(pages.map((p) => p.toString()));
      }
      const metrics = await h.app.inject({ url: '/metrics' });
      expect(metrics.body).toMatch(
        /rollup_indexer_api_row_cache_rows_total\{table="tx",result="hit"\} [1-9]/,
      );
      expect(metrics.body).toMatch(/rollup_indexer_api_row_cache_bytes [1-9]/);
    });

    it('a store reset under the running API (another chain, same sequences) is served from the new store', async () => {
      const urls = listUrls(h.chain);
      for (const url of [...urls, ...urls]) await raw(h.app, url); // held
      await resetStore(h.db);
      const other = buildChain({ vm, blocks: 40, seed: 99, chainId: `${vm}-other` });
      await seedDb(h.db, other);
      for (const url of listUrls(other)) {
        const expected = await raw(off, url);
        // The identity is re-read at most once a second (STORE_CHECK_MS): poll until it was.
        const deadline = Date.now() + 15_000;
        let answer = await raw(h.app, url);
        while (!answer.equals(expected) && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 50));
          answer = await raw(h.app, url);
        }
        expect(answer.equals(expected), url).toBe(true);
      }
      const metrics = await h.app.inject({ url: '/metrics' });
      expect(metrics.body).toMatch(/rollup_indexer_api_row_cache_drops_total [1-9]/);
    });
  });

  it('rows held from one page are intact after later pages went through the same connections', async () => {
    const h = await createHarness(factory, { vm: 'move', blocks: 400 });
    try {
      const off = await h.appWith({ API_ROW_CACHE_MB: '0' });
      const first = '/indexer/tx/v1/txs?pagination.limit=20';
      const expected = await raw(off, first);
      // Rows are held from their second fetch on (row-cache.ts, admission).
      for (let i = 0; i < 2; i += 1) expect((await raw(h.app, first)).equals(expected)).toBe(true);
      // Other rows, read into the same reused socket buffers (pg-socket.ts) on PostgreSQL.
      for (let offset = 200; offset < h.chain.txs.length; offset += 100) {
        await raw(h.app, `/indexer/tx/v1/txs?pagination.limit=100&pagination.offset=${offset}`);
      }
      expect((await raw(h.app, first)).equals(expected)).toBe(true);
    } finally {
      await h.dispose();
    }
  });
});
