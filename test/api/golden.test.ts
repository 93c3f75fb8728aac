import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { gunzipSync, gzipSync } from 'node:zlib';
import { createSimulator } from '../../src/sim/simulator.js';
import type { Simulator, VmType } from '../../src/sim/types.js';
import type { Db } from '../../src/store/driver/db.js';
import { testDbFactories } from '../helpers/db.js';
import { ingestFrom } from '../helpers/ingest.js';
import { routeAnswers } from './route-answers.js';

/**
 * The API's answers, byte for byte, against answers recorded from an earlier release: the guard
 * for refactors that must not change what clients get. One simulator chain per VM is indexed with
 * every stage on; every route class is asked (lists walked both ways through their cursors, details,
 * per-account totals, NFT and rich-list routes: `routeAnswers`), plus the OpenAPI document and the
 * error answers of each kind of bad input. Each answer is its status, content type and body.
 *
 * The recorded answers are `test/fixtures/golden/<vm>.json.gz`. A change that means to alter an
 * answer re-records them (`GOLDEN_RECORD=1 npx vitest run test/api/golden.test.ts`) and says why in
 * its commit; the diff of the decompressed files shows what changed.
 */
const HEAD = 24;
const RECORD = process.env.GOLDEN_RECORD === '1';
const fixture = (vm: VmType) => new URL(`../fixtures/golden/${vm}.json.gz`, import.meta.url);

/** Bad input of every kind the API rejects, and routes and records that do not exist. */
const ERROR_REQUESTS = [
  '/indexer/tx/v1/txs?pagination.limit=abc',
  '/indexer/tx/v1/txs?pagination.limit=-1',
  '/indexer/tx/v1/txs?pagination.key=not-a-key',
  '/indexer/tx/v1/txs?pagination.offset=x',
  '/indexer/tx/v1/txs?pagination.reverse=maybe',
  '/indexer/tx/v1/txs?pagination.count_total=maybe',
  '/indexer/tx/v1/txs/by_account/not-an-address',
  '/indexer/tx/v1/txs/by_account/init1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq?is_signer=maybe',
  '/indexer/tx/v1/txs/by_height/0',
  '/indexer/tx/v1/txs/by_height/abc',
  '/indexer/tx/v1/txs/nothex',
  `/indexer/tx/v1/txs/${'0'.repeat(64)}`,
  '/indexer/block/v1/blocks/abc',
  '/indexer/block/v1/blocks/999999',
  '/indexer/nft/v1/collections/not-an-address',
  '/indexer/nft/v1/tokens/by_account/not-an-address',
  '/indexer/nft/v1/collections/by_name/no-such-collection',
  '/indexer/richlist/v1/no-such-denom',
  '/indexer/tx/v1/evm-txs/nothex',
  '/no/such/route',
];

const store = testDbFactories().at(-1)!;

describe.each(['move', 'wasm', 'evm'] as VmType[])(`golden answers on %s (${store.name})`, (vm) => {
  let sim: Simulator;
  let database: { db: Db; dispose(): Promise<void> };
  let answers: Map<string, string>;
  beforeAll(async () => {
    sim = createSimulator({
      vm,
      chainId: `golden-${vm}-1`,
      head: HEAD,
      txsPerBlock: '1-5',
      accounts: 8,
      nftShare: 0.5,
      rpcPort: 0,
      restPort: 0,
      jsonRpcPort: 0,
    });
    const urls = await sim.listen();
    database = await store.create();
    await ingestFrom({ db: database.db, vm, urls, untilHeight: HEAD });
    answers = await routeAnswers(database.db, sim, HEAD, ['/swagger/doc.json', ...ERROR_REQUESTS]);
  }, 300_000);
  afterAll(async () => {
    await sim?.close();
    await database?.dispose();
  });

  it('answers every request as recorded', async () => {
    const got = Object.fromEntries([...answers].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    if (RECORD) {
      await mkdir(new URL('../fixtures/golden/', import.meta.url), { recursive: true });
      await writeFile(fixture(vm), gzipSync(JSON.stringify(got, null, 1), { level: 9 }));
    }
    const want = JSON.parse(gunzipSync(await readFile(fixture(vm))).toString('utf8')) as Record<
      string,
      string
    >;
    expect(Object.keys(got)).toEqual(Object.keys(want));
    const differing = Object.keys(want).filter((url) => got[url] !== want[url]);
    // The first differences in full, so a failure shows what changed and where.
    for (const url of differing.slice(0, 3))
      expect({ url, answer: got[url] }).toEqual({ url, answer: want[url] });
    expect(differing).toEqual([]);
  });
});
