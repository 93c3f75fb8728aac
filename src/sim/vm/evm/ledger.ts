import type { EvmContracts } from './contracts.js';
import type { EvmTxData } from './types.js';
import { createLedger, type Ledger, type Movement } from '../../chain/ledger.js';
import type { PlannedTx } from '../../chain/plan.js';

export { GENESIS_BALANCE } from '../../chain/ledger.js';
export type EvmLedger = Ledger;

export interface LedgerDeps {
  contracts: EvmContracts;
  accountsHex: string[];
  feeCollectorHex: string;
  plan(g: number): PlannedTx;
  evmData(tx: PlannedTx): EvmTxData | undefined;
}

/** ERC20 balances (tokens keyed by lower-case contract): fees, refunds and every token transfer. */
export function createEvmLedger(deps: LedgerDeps): Ledger {
  const tokens = new Set<string>([deps.contracts.feeToken]);
  for (const d of ['uusdc', 'ueth']) {
    const t = deps.contracts.tokenOf(d);
    if (t) tokens.add(t);
  }
  const ledger = createLedger({
    genesisAddresses: deps.accountsHex,
    genesisTokens: [...tokens],
    movements(g) {
      const tx = deps.plan(g);
      const data = deps.evmData(tx);
      const fee = tx.fee[0];
      const out: Movement[] = [];
      const feeToken = deps.contracts.feeToken;
      if (fee)
        out.push({
          token: feeToken,
          from: tx.signer.hex,
          to: deps.feeCollectorHex,
          amount: BigInt(fee.amount),
        });
      if (!data) return out;
      if (data.refund > 0n)
        out.push({ token: feeToken, from: deps.feeCollectorHex, to: tx.signer.hex, amount: data.refund });
      for (const d of data.transfers) out.push({ token: d.token, from: d.from, to: d.to, amount: d.amount });
      return out;
    },
  }); // Contracts are keyed lower-case, whatever case a caller sends.
  return {
    balanceOf: (token, address, lastG) => ledger.balanceOf(token.toLowerCase(), address, lastG),
    tokensOf: (address, lastG) => ledger.tokensOf(address, lastG),
    holders: (token, lastG) => ledger.holders(token.toLowerCase(), lastG),
    addresses: (lastG) => ledger.addresses(lastG),
    supply: (lastG) => ledger.supply(lastG),
  };
}
