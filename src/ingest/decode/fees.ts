import { AppError } from '../../shared/errors.js';
import type { Coin } from './tx.js';

const INT_RE = /^-?\d+$/;

/**
 * SDK `Coins.Add` over many fee lists (the block's total fee, docs/ingest.md §5.1): amounts of the same
 * denom are summed exactly, zero results are dropped, and the result is sorted by denom
 * (bytewise, as Go sorts strings).
 */
export function sumFees(coinsList: readonly (readonly Coin[])[]): Coin[] {
  const totals = new Map<string, bigint>();
  for (const coins of coinsList) {
    for (const coin of coins) {
      if (!INT_RE.test(coin.amount)) {
        throw new AppError(
          'fee_malformed',
          `fee amount ${JSON.stringify(coin.amount)} of ${coin.denom} is not an integer`,
        );
      }
      totals.set(coin.denom, (totals.get(coin.denom) ?? 0n) + BigInt(coin.amount));
    }
  }
  return [...totals.entries()]
    .filter(([, amount]) => amount !== 0n)
    .sort(([a], [b]) => Buffer.compare(Buffer.from(a), Buffer.from(b)))
    .map(([denom, amount]) => ({ denom, amount: amount.toString() }));
}
