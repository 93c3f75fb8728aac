import type { EvmContracts } from './evm-contracts.js';
import type { EvmTxData } from './evm-types.js';
import { Lru } from './lru.js';
import type { PlannedTx } from './plan.js';

/**
 * ERC20 balances as exact sums of every token movement (fees, refunds, transfers) from genesis,
 * so `balanceOf`, REST calls and `truth.holders` agree. Snapshots every SNAPSHOT txs bound the
 * work; the first query at a height costs O(txs below it).
 */
const SNAPSHOT = 1024;
export const GENESIS_BALANCE = 10n ** 24n;

export interface EvmLedger {
  balanceOf(token: string, address: string, lastG: number): bigint;
  holders(token: string, lastG: number): Array<{ address: string; amount: bigint }>;
}

export interface LedgerDeps {
  contracts: EvmContracts;
  accountsHex: string[];
  feeCollectorHex: string;
  plan(g: number): PlannedTx;
  evmData(tx: PlannedTx): EvmTxData | undefined;
}

type Balances = Map<string, bigint>;

export function createEvmLedger(deps: LedgerDeps): EvmLedger {
  const tokens = new Set<string>([deps.contracts.feeToken]);
  for (const d of ['uusdc', 'ueth']) {
    const t = deps.contracts.tokenOf(d);
    if (t) tokens.add(t);
  }
  const genesis = (): Balances => {
    const b: Balances = new Map();
    for (const t of tokens) for (const a of deps.accountsHex) b.set(`${t}|${a}`, GENESIS_BALANCE);
    return b;
  };
  const snapshots = new Lru<number, Balances>(256);
  const start = genesis();
  const move = (b: Balances, token: string, from: string, to: string, amount: bigint): void => {
    const f = `${token}|${from}`;
    const t = `${token}|${to}`;
    b.set(f, (b.get(f) ?? 0n) - amount);
    b.set(t, (b.get(t) ?? 0n) + amount);
  };
  const apply = (b: Balances, g: number): void => {
    const tx = deps.plan(g);
    const data = deps.evmData(tx);
    const fee = tx.fee[0];
    if (fee) move(b, deps.contracts.feeToken, tx.signer.hex, deps.feeCollectorHex, BigInt(fee.amount));
    if (!data) return;
    if (data.refund > 0n) move(b, deps.contracts.feeToken, deps.feeCollectorHex, tx.signer.hex, data.refund);
    for (const d of data.transfers) move(b, d.token, d.from, d.to, d.amount);
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
    balanceOf: (token, address, lastG) =>
      cached(lastG).get(`${token.toLowerCase()}|${address.toLowerCase()}`) ?? 0n,
    holders(token, lastG) {
      const prefix = token.toLowerCase() + '|';
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
