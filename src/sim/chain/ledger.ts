import { Lru } from './lru.js';

/**
 * Balances as exact sums of every movement from genesis, so state answers (`balanceOf`, bank
 * balances) and `truth.holders` agree with the events. Snapshots every SNAPSHOT txs bound the work;
 * the first query at a height costs O(txs below it). Addresses are lower-case hex keys.
 */
const SNAPSHOT = 1024;
export const GENESIS_BALANCE = 10n ** 24n;

/** Value moving between two addresses (an absent side is a mint or a burn). */
export interface Movement {
  token: string;
  from?: string | undefined;
  to?: string | undefined;
  amount: bigint;
}

export interface Ledger {
  balanceOf(token: string, address: string, lastG: number): bigint;
  /** Tokens with a non-zero balance at the address. */
  tokensOf(address: string, lastG: number): string[];
  holders(token: string, lastG: number): Array<{ address: string; amount: bigint }>;
  /** Every address that has held anything by then, sorted. */
  addresses(lastG: number): string[];
  /** Every token's total (x/bank supply: the sum of every balance), zero totals left out. */
  supply(lastG: number): Map<string, bigint>;
}

type Balances = Map<string, bigint>;

export function createLedger(deps: {
  /** Every keyring address holds GENESIS_BALANCE of every genesis token. */
  genesisAddresses: string[];
  genesisTokens: string[];
  /** The movements of tx g, in order. */
  movements(g: number): Movement[];
}): Ledger {
  const start: Balances = new Map();
  for (const t of deps.genesisTokens)
    for (const a of deps.genesisAddresses) start.set(`${t}|${a}`, GENESIS_BALANCE);
  const snapshots = new Lru<number, Balances>(256);
  const add = (b: Balances, key: string, amount: bigint) => b.set(key, (b.get(key) ?? 0n) + amount);
  const apply = (b: Balances, g: number): void => {
    for (const m of deps.movements(g)) {
      if (m.from !== undefined) add(b, `${m.token}|${m.from}`, -m.amount);
      if (m.to !== undefined) add(b, `${m.token}|${m.to}`, m.amount);
    }
  };
  /** Balances after tx `lastG` (inclusive). */
  const at = (lastG: number): Balances => {
    const upto = lastG + 1;
    let base = Math.floor(upto / SNAPSHOT) * SNAPSHOT;
    while (base > 0 && !snapshots.get(base)) base -= SNAPSHOT;
    let b = new Map(base === 0 ? start : snapshots.get(base)!);
    for (let g = base; g < upto; g++) {
      apply(b, g);
      if ((g + 1) % SNAPSHOT === 0 && g + 1 < upto) {
        snapshots.set(g + 1, b);
        b = new Map(b);
      }
    }
    return b;
  };
  const cache = new Lru<number, Balances>(16);
  const cached = (lastG: number): Balances => cache.getOrSet(lastG, () => at(lastG));
  return {
    balanceOf: (token, address, lastG) => cached(lastG).get(`${token}|${address.toLowerCase()}`) ?? 0n,
    tokensOf(address, lastG) {
      const suffix = `|${address.toLowerCase()}`;
      const out: string[] = [];
      for (const [key, amount] of cached(lastG)) {
        if (amount !== 0n && key.endsWith(suffix)) out.push(key.slice(0, -suffix.length));
      }
      return out;
    },
    addresses(lastG) {
      const seen = new Set<string>();
      for (const key of cached(lastG).keys()) seen.add(key.slice(key.indexOf('|') + 1));
      return [...seen].sort();
    },
    supply(lastG) {
      const totals = new Map<string, bigint>();
      for (const [key, amount] of cached(lastG)) {
        const token = key.slice(0, key.lastIndexOf('|'));
        totals.set(token, (totals.get(token) ?? 0n) + amount);
      }
      for (const [token, total] of totals) if (total === 0n) totals.delete(token);
      return totals;
    },
    holders(token, lastG) {
      const prefix = token + '|';
      const out: Array<{ address: string; amount: bigint }> = [];
      for (const [key, amount] of cached(lastG)) {
        if (key.startsWith(prefix) && amount > 0n) out.push({ address: key.slice(prefix.length), amount });
      }
      return out.sort((a, b) =>
        a.amount === b.amount ? (a.address < b.address ? -1 : 1) : a.amount > b.amount ? -1 : 1,
      );
    },
  };
}
