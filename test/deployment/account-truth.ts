import type { Simulator } from '../../src/sim/types.js';

/** One tx of the simulators' own truth, as the account routes must list it (docs/chains.md §4.1). */
export interface TruthTx {
  chainId: string;
  /** Upper-case hex. */
  hash: string;
  height: number;
  index: number;
  /** Sortable block time (nanosecond exact): `YYYY-MM-DDTHH:MM:SS.nnnnnnnnn`. */
  time: string;
  signer: string;
  accounts: readonly string[];
  msgTypes: readonly string[];
}

/** Written apart from the route's own helper: the truth's RFC 3339 time, fraction padded to 9 digits. */
function sortableTime(rfc3339: string): string {
  const [whole, fraction = ''] = rfc3339.replace(/Z$/, '').split('.');
  return `${whole}.${fraction.padEnd(9, '0')}`;
}

/** Every tx of heights 1..head, from the simulator's truth. */
export function chainTruth(chainId: string, sim: Simulator, head: number): TruthTx[] {
  const out: TruthTx[] = [];
  for (let h = 1; h <= head; h++) {
    const block = sim.truth.block(h);
    const time = sortableTime(block.time);
    for (const tx of block.txs) {
      out.push({
        chainId,
        hash: tx.hash,
        height: h,
        index: tx.index,
        time,
        signer: tx.signer,
        accounts: tx.accounts,
        msgTypes: tx.msgTypes,
      });
    }
  }
  return out;
}

const cmpBytes = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

/** Ascending (block time, chain id by bytes, position in the chain). */
export function compareTruth(a: TruthTx, b: TruthTx): number {
  if (a.time !== b.time) return a.time < b.time ? -1 : 1;
  return cmpBytes(a.chainId, b.chainId) || a.height - b.height || a.index - b.index;
}

export interface TruthFilter {
  account: string;
  signerOnly?: boolean;
  /** Any of these message types (without '/'). */
  msgs?: readonly string[];
  /** Highest height of each chain in the snapshot (all heights when absent). */
  heights?: ReadonlyMap<string, number>;
}

/** The account's txs across chains in walk order, the merge of every chain's truth. */
export function expectedWalk(truth: readonly TruthTx[], f: TruthFilter, desc: boolean): TruthTx[] {
  const kept = truth.filter(
    (t) =>
      (f.signerOnly ? t.signer === f.account : t.accounts.includes(f.account)) &&
      (f.msgs === undefined || t.msgTypes.some((m) => f.msgs!.includes(m))) &&
      (f.heights === undefined || t.height <= (f.heights.get(t.chainId) ?? 0)),
  );
  kept.sort(compareTruth);
  return desc ? kept.reverse() : kept;
}

/** Accounts with txs on two or more chains. */
export function accountsOnSeveralChains(truth: readonly TruthTx[]): string[] {
  const chains = new Map<string, Set<string>>();
  for (const t of truth)
    for (const a of t.accounts) {
      if (!chains.has(a)) chains.set(a, new Set());
      chains.get(a)!.add(t.chainId);
    }
  return [...chains]
    .filter(([, c]) => c.size >= 2)
    .map(([a]) => a)
    .sort();
}

export interface WalkItem {
  chain_id: string;
  tx: { txhash: string; height: string; timestamp: string };
}

export interface WalkPage {
  items: WalkItem[];
  pagination: { next_key: string | null; total: string };
  unavailable: string[];
}

/** Follows `next_key` to the end; `between` runs after every page (e.g. to wait for a commit). */
export async function walkAccount(
  base: string,
  address: string,
  params: Record<string, string>,
  between?: (page: WalkPage, n: number) => Promise<void>,
): Promise<{ items: WalkItem[]; pages: WalkPage[] }> {
  const pages: WalkPage[] = [];
  let key: string | null = null;
  do {
    const q = new URLSearchParams({ ...params, ...(key ? { 'pagination.key': key } : {}) });
    const res = await fetch(`${base}/indexer/account/v1/${address}/txs?${q.toString()}`);
    if (res.status !== 200) throw new Error(`status ${res.status}: ${await res.text()}`);
    const page = (await res.json()) as WalkPage;
    pages.push(page);
    key = page.pagination.next_key;
    if (between) await between(page, pages.length);
  } while (key);
  return { items: pages.flatMap((p) => p.items), pages };
}

export const walkKey = (t: { chain_id: string; tx: { txhash: string } } | TruthTx): string =>
  'chain_id' in t ? `${t.chain_id}/${t.tx.txhash}` : `${t.chainId}/${t.hash}`;
