import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HolderTruth } from '../../src/sim/types.js';
import { heavySuiteVms, testDbFactories } from '../helpers/db.js';
import { indexSimulator, type IndexedSimulator } from '../helpers/ingest.js';
import { excludedModuleAccounts, storedDenom } from '../helpers/truth-rich-list.js';
import { accountBytesFromString } from '../../src/shared/address.js';
import { createHarness, walk, type Harness } from './harness.js';

const HEAD = 40;
const BASE = '/indexer/richlist/v1';
// Each VM once and each store once (heavySuiteVms): the list's SQL, the same on both stores, is
// proven on both by src/store/readers/rich-list.test.ts; here each VM's denoms and address forms.

/** Largest first, then by account id descending: the route's order, with ties rare but allowed. */
const byAmount = (a: { amount: string }, b: { amount: string }) => {
  const [x, y] = [BigInt(a.amount), BigInt(b.amount)];
  return x === y ? 0 : x > y ? -1 : 1;
};

describe.each(
  testDbFactories().flatMap((factory) =>
    heavySuiteVms(factory.name).map((vm) => ({ factory, vm, name: `${factory.name}/${vm}` })),
  ),
)('rich list route against an ingested simulator ($name)', ({ factory, vm }) => {
  let h: Harness;
  let indexed: IndexedSimulator;
  let modules: Set<string>;
  const account = (bech32: string) =>
    vm === 'evm' ? '0x' + Buffer.from(accountBytesFromString(bech32, 'init')).toString('hex') : bech32;
  beforeAll(async () => {
    const chainId = `richlist-${vm}-1`;
    h = await createHarness(factory, { vm, blocks: 0, seed: false, env: { CHAIN_ID: chainId } });
    indexed = await indexSimulator({ db: h.db, vm, head: HEAD, txsPerBlock: '0-6', sim: { chainId } });
    modules = await excludedModuleAccounts(indexed.sim);
  }, 120_000);
  afterAll(async () => {
    await indexed?.close();
    await h?.dispose();
  });

  const truthOf = (denom: string): HolderTruth[] =>
    indexed.sim.truth
      .holders(denom, HEAD)
      .filter((x) => BigInt(x.amount) > 0n && !modules.has(x.account))
      .map((x) => ({ account: account(x.account), amount: x.amount }));

  it('walks every denom in both directions and at several limits, equal to the truth', async () => {
    const status = (await h.get('/status')).json as Record<string, unknown>;
    expect(status).toMatchObject({ height: HEAD, rich_list_height: HEAD });
    expect('internal_tx_height' in status).toBe(vm === 'evm');
    for (const denom of indexed.sim.truth.denoms()) {
      const truth = truthOf(denom);
      for (const limit of ['1', '7', '1000']) {
        for (const reverse of ['true', 'false']) {
          const { items, total } = await walk(h, `${BASE}/${denom.replace(/\//g, '%2F')}`, 'holders', {
            'pagination.limit': limit,
            'pagination.reverse': reverse,
          });
          const holders = items as HolderTruth[];
          expect(total).toBe(String(truth.length));
          const sorted = [...holders].sort(byAmount);
          expect(
            reverse === 'true' ? holders.map((x) => x.amount) : [...holders].reverse().map((x) => x.amount),
          ).toEqual(sorted.map((x) => x.amount));
          const byAccount = (l: HolderTruth[]) => [...l].sort((a, b) => (a.account < b.account ? -1 : 1));
          expect(byAccount(holders), `${denom} limit ${limit} reverse ${reverse}`).toEqual(byAccount(truth));
        }
      }
    }
  });

  it('answers the same list for every spelling of a denom', async () => {
    for (const denom of indexed.sim.truth.denoms()) {
      const stored = await storedDenom(h.db, denom);
      const { rows } = await h.db.query<{ alias: string }>(
        'SELECT alias FROM rich_list_denom WHERE denom = $1',
        [stored],
      );
      if (vm === 'move') expect(rows.some((r) => r.alias.startsWith('move/'))).toBe(true);
      const first = (await h.get(`${BASE}/${denom.replace('/', '%2F')}?pagination.limit=5`)).json;
      expect((first as { holders: unknown[] }).holders).toHaveLength(5);
      const spellings = [
        denom.replace('/', '%2f'),
        denom.toUpperCase().replace('/', '%2F'),
        stored,
        ...rows.map((r) => r.alias),
      ];
      for (const spelling of spellings) {
        expect(
          (await h.get(`${BASE}/${spelling.replace('/', '%2F')}?pagination.limit=5`)).json,
          spelling,
        ).toEqual(first);
      }
    }
  });

  it('resumes after the last holder when balances change between pages', async () => {
    const denom = indexed.sim.truth.denoms()[1]!;
    const url = `${BASE}/${denom}?pagination.limit=3`;
    const page1 = (await h.get(url)).json as { holders: HolderTruth[]; pagination: { next_key: string } };
    // The top holder's balance drops below everyone else's: an offset key would now skip a holder.
    const top = await storedDenom(h.db, denom);
    await h.db.query(
      `UPDATE rich_list SET amount = 1 WHERE denom = $1 AND account_id = (
         SELECT account_id FROM rich_list WHERE denom = $1 ORDER BY amount DESC, account_id DESC LIMIT 1)`,
      [top],
    );
    const page2 = (await h.get(`${url}&pagination.key=${encodeURIComponent(page1.pagination.next_key)}`))
      .json as { holders: HolderTruth[] };
    const truth = truthOf(denom).sort(byAmount);
    expect(page2.holders.map((x) => x.amount)).toEqual(truth.slice(3, 6).map((x) => x.amount));
  });

  it('hands out previous_key as the offset one page back (docs/api.md §2.3 A), none after a cursor key', async () => {
    const denom = indexed.sim.truth.denoms()[0]!;
    type Page = {
      holders: HolderTruth[];
      pagination: { previous_key: string | null; next_key: string | null };
    };
    const get = async (query: string) =>
      (await h.get(`${BASE}/${denom.replace(/\//g, '%2F')}?${query}`)).json as Page;
    const key = (n: number) => Buffer.from(String(n)).toString('base64');
    expect((await get('pagination.limit=3')).pagination.previous_key).toBeNull();
    expect((await get('pagination.limit=3&pagination.offset=2')).pagination.previous_key).toBeNull();
    expect((await get('pagination.limit=3&pagination.offset=3')).pagination.previous_key).toBe(key(0));
    const deep = await get('pagination.limit=3&pagination.offset=7');
    expect(deep.pagination.previous_key).toBe(key(4));
    // An integer key is an offset too, and the previous key leads to the page before it.
    const byKey = await get(`pagination.limit=3&pagination.key=${encodeURIComponent(key(7))}`);
    expect(byKey).toEqual(deep);
    const back = await get(
      `pagination.limit=3&pagination.key=${encodeURIComponent(deep.pagination.previous_key!)}`,
    );
    expect(back.holders).toEqual((await get('pagination.limit=3&pagination.offset=4')).holders);
    // Past the end the offset still steps back.
    expect((await get('pagination.limit=3&pagination.offset=9000')).pagination.previous_key).toBe(key(8997));
    const first = await get('pagination.limit=3');
    const next = await get(
      `pagination.limit=3&pagination.key=${encodeURIComponent(first.pagination.next_key!)}`,
    );
    expect(next.holders).toHaveLength(3);
    expect(next.pagination.previous_key).toBeNull();
  });

  it('answers bad input with 400 JSON naming the parameter, an unknown denom with an empty list', async () => {
    const bad = async (url: string, message: string) => {
      const res = await h.app.inject({ url });
      expect(res.statusCode, res.body).toBe(400);
      expect((JSON.parse(res.body) as { message: string }).message).toBe(message);
    };
    await bad(`${BASE}/uusdc?pagination.limit=0`, 'pagination.limit must be between 1 and 1000');
    await bad(`${BASE}/uusdc?pagination.offset=-4`, 'pagination.offset cannot be negative');
    await bad(`${BASE}/uusdc?pagination.key=%25%25`, 'pagination.key must be a valid base64 encoded string');
    await bad(`${BASE}/a%20b`, '[INVALID_VALUE] invalid value for denom: a%20b (not a denom)');
    await bad(
      `${BASE}/${'x'.repeat(200)}`,
      `[INVALID_VALUE] invalid value for denom: ${'x'.repeat(200)} (not a denom)`,
    );
    expect((await h.get(`${BASE}/nosuchdenom`)).json).toEqual({
      holders: [],
      pagination: { previous_key: null, next_key: null, total: '0' },
    });
    expect((await h.app.inject({ url: '/indexer/richlist/v1' })).statusCode).toBe(404);
    // Past the last holder: no rows, the total still counted.
    const past = (await h.get(`${BASE}/uusdc?pagination.offset=9000`)).json as {
      holders: unknown[];
      pagination: { total: string };
    };
    expect(past.holders).toEqual([]);
    expect(past.pagination.total).toBe(String(truthOf('uusdc').length));
    // A malformed cursor falls back to the offset, never a 500.
    const odd = Buffer.from('{"amount":"x","account_id":"y"}').toString('base64');
    expect((await h.app.inject({ url: `${BASE}/uusdc?pagination.key=${odd}` })).statusCode).toBe(200);
  });
});
