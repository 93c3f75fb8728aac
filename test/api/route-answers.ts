import { createApiApp } from '../../src/api/app.js';
import { loadApiOptions } from '../../src/api/options.js';
import { silentLogger } from '../../src/shared/logger.js';
import { createMetricsRegistry } from '../../src/shared/metrics.js';
import type { Db } from '../../src/store/driver/db.js';
import type { BlockTruth, Simulator, TxTruth } from '../../src/sim/types.js';

/**
 * The API's answers to one request of every route class over a database, keyed by URL: the status,
 * the content type and the body exactly as sent. The requests come from the simulator's own truth
 * (its heights, hashes, accounts, message types, collections, tokens and denoms), so two databases
 * of the same chain can be compared answer by answer, byte for byte.
 */
export type RouteAnswers = Map<string, string>;

const TX = '/indexer/tx/v1';
const NFT = '/indexer/nft/v1';
const ALL = 'pagination.limit=1000';

/** `extraGets`: more URLs asked once each after the route classes' own requests. */
export async function routeAnswers(
  db: Db,
  sim: Simulator,
  head: number,
  extraGets: readonly string[] = [],
): Promise<RouteAnswers> {
  return withSingleChainApi(db, sim, (get) => routeAnswersVia(get, sim, head, extraGets));
}

/** A single-chain API app over `db` (the simulator's chain, cache off), asked in-process by `use`. */
export async function withSingleChainApi<T>(
  db: Db,
  sim: Simulator,
  use: (get: (url: string) => Promise<RawAnswer>) => Promise<T>,
): Promise<T> {
  const app = await createApiApp({
    options: loadApiOptions({ CHAIN_ID: sim.options.chainId, VM_TYPE: sim.options.vm, API_CACHE: 'false' }),
    db,
    logger: silentLogger(),
    metrics: createMetricsRegistry({ defaultMetrics: false }),
  });
  try {
    await app.ready();
    return await use(async (url) => {
      const res = await app.inject({ method: 'GET', url });
      return { status: res.statusCode, contentType: String(res.headers['content-type']), body: res.body };
    });
  } finally {
    await app.close();
  }
}

/** An answer as a client sees it. */
export interface RawAnswer {
  status: number;
  contentType: string;
  body: string;
}

/** The same walk through any client: `get` asks one URL of the API (in-process, or over HTTP under a base path). */
export async function routeAnswersVia(
  get: (url: string) => Promise<RawAnswer>,
  sim: Simulator,
  head: number,
  extraGets: readonly string[] = [],
): Promise<RouteAnswers> {
  const answers: RouteAnswers = new Map();
  const ask = async (url: string) => {
    const res = await get(url);
    answers.set(url, `${res.status} ${res.contentType}\n${res.body}`);
    return res;
  };
  const walk = async (path: string, limit: number) => {
    for (const reverse of [true, false]) {
      let url: string | undefined =
        `${path}${path.includes('?') ? '&' : '?'}pagination.limit=${limit}&pagination.reverse=${reverse}`;
      // Follows next_key, so cursors are compared too; bounded in case one never ends.
      for (let page = 0; url !== undefined && page < 200; page++) {
        const res = await ask(url);
        const next =
          res.status === 200 ? (JSON.parse(res.body) as { pagination?: { next_key?: string | null } }) : {};
        const key = next.pagination?.next_key;
        url = key
          ? `${url.replace(/&pagination\.key=[^&]*/, '')}&pagination.key=${encodeURIComponent(key)}`
          : undefined;
      }
    }
  };
  const requests = requestsOf(sim, head);
  for (const [path, limit] of requests.walks) await walk(path, limit);
  for (const url of [...requests.gets, ...extraGets]) await ask(url);
  return answers;
}

/** Paged lists walked in full both ways (small pages, so cursors cross many rows) and single GETs. */
function requestsOf(sim: Simulator, head: number): { walks: [string, number][]; gets: string[] } {
  const blocks = Array.from({ length: head }, (_, i) => sim.truth.block(i + 1));
  const txs = blocks.flatMap((b) => b.txs);
  const everyAccount = [...new Set(txs.flatMap((t) => t.accounts))].sort();
  const accounts = sample(everyAccount, Math.ceil(everyAccount.length / 10));
  const msgTypes = [...new Set(txs.flatMap((t) => t.msgTypes))].sort();
  const walks: [string, number][] = [
    ['/indexer/block/v1/blocks', 10],
    [`${TX}/txs`, 20],
  ];
  const gets = ['/status', '/indexer/block/v1/avg_blocktime'];
  for (const b of sample(blocks, 4)) {
    gets.push(`/indexer/block/v1/blocks/${b.height}`, `${TX}/txs/by_height/${b.height}?${ALL}`);
  }
  for (const t of sample(txs, 8)) gets.push(`${TX}/txs/${t.hash}`);
  for (const m of msgTypes) gets.push(`${TX}/txs?msgs=${encodeURIComponent(m)}&${ALL}`);
  accountRequests(gets, sim.options.vm === 'evm', txs, everyAccount, new Set(accounts));
  if (sim.options.vm === 'evm') evmRequests(walks, gets, sample(blocks, 4), txs);
  nftRequests(walks, gets, sim, head, accounts);
  for (const denom of sim.truth.denoms())
    gets.push(`/indexer/richlist/v1/${encodeURIComponent(denom)}?${ALL}`);
  return { walks, gets };
}

/**
 * Every account's first item and totals (the per-account counters, the signed counter of each
 * signer, the account x message-type edges over all its types); the sampled accounts' full lists.
 */
function accountRequests(gets: string[], evm: boolean, txs: TxTruth[], all: string[], full: Set<string>) {
  const signers = new Set(txs.map((t) => t.signer));
  const kinds = ['txs', ...(evm ? ['evm-txs', 'evm-internal-txs'] : [])];
  for (const a of all) {
    const limit = full.has(a) ? ALL : 'pagination.limit=1';
    const types = [...new Set(txs.filter((t) => t.accounts.includes(a)).flatMap((t) => t.msgTypes))];
    for (const kind of kinds) gets.push(`${TX}/${kind}/by_account/${a}?${limit}`);
    if (signers.has(a)) gets.push(`${TX}/txs/by_account/${a}?is_signer=true&${limit}`);
    gets.push(`${TX}/txs/by_account/${a}?msgs=${encodeURIComponent(types.join(','))}&${limit}`);
    if (full.has(a)) gets.push(`${TX}/txs/by_account/${a}?msgs=${encodeURIComponent(types[0] ?? '')}&${ALL}`);
  }
}

function evmRequests(walks: [string, number][], gets: string[], blocks: BlockTruth[], txs: TxTruth[]) {
  for (const kind of ['evm-txs', 'evm-internal-txs']) {
    walks.push([`${TX}/${kind}`, 20]);
    for (const b of blocks) gets.push(`${TX}/${kind}/by_height/${b.height}?${ALL}`);
    for (const t of sample(txs, 8)) if (t.evmHash) gets.push(`${TX}/${kind}/${t.evmHash}?${ALL}`);
  }
}

function nftRequests(
  walks: [string, number][],
  gets: string[],
  sim: Simulator,
  head: number,
  accounts: string[],
) {
  walks.push([`${NFT}/collections`, 2]);
  for (const c of sim.truth.nftCollections(head)) {
    gets.push(`${NFT}/collections/${c.addr}`, `${NFT}/tokens/by_collection/${c.addr}?${ALL}`);
    gets.push(`${NFT}/collections/by_name/${encodeURIComponent(c.name)}?${ALL}`);
  }
  for (const a of accounts) {
    gets.push(`${NFT}/collections/by_account/${a}?${ALL}`, `${NFT}/tokens/by_account/${a}?${ALL}`);
  }
  for (const t of sample(sim.truth.nftTokens(head), 2)) {
    gets.push(`${NFT}/txs/${t.collectionAddr}/${encodeURIComponent(t.tokenId)}?${ALL}`);
  }
}

/** Every n-th item, the last included: detail routes read the same rows as the lists. */
function sample<T>(items: T[], every: number): T[] {
  return items.filter((_, i) => i % every === 0 || i === items.length - 1);
}
