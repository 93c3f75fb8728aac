import { accountBytesFromString } from '../../shared/address.js';
import type { BankState } from '../../node/bank-state.js';
import type { EvmClient } from '../../node/evm.js';
import type { RawBlock } from '../../node/types.js';
import type { BalanceRow } from '../../store/writers/rich-list-writer.js';
import { erc20Deltas, type BalanceDelta } from '../collectors/rich-list-deltas.js';

/** Where one VM's balances come from: its events, and the node's state to start from or correct by. */
export interface BalanceSource {
  /** Balance changes in one block's events (tx results and finalize-block events). */
  deltas(block: RawBlock): BalanceDelta[];
  /** The node's balances of these pairs (account as 20/32-byte hex) at a height. */
  balancesAt(pairs: readonly { denom: string; account: string }[], height: number): Promise<bigint[]>;
  /** Every account's balances at a height, and the other spellings of their denoms. */
  snapshot(height: number): Promise<{ rows: BalanceRow[]; aliases: Array<{ alias: string; denom: string }> }>;
}

const eventsOf = (block: RawBlock) => [
  ...block.txResults.flatMap((r) => r.events),
  ...block.finalizeBlockEvents,
];

/** Requests per batch of node look-ups. */
const LOOKUP_BATCH = 200;

/**
 * EVM: ERC20 Transfer logs; balances and corrections from `balanceOf`; the snapshot maps each
 * bank denom to its ERC20 contract (`/minievm/evm/v1/contracts/by_denom`), and bank denoms become
 * the contract's aliases.
 */
export function createEvmBalanceSource(ctx: {
  evm: EvmClient;
  bank: BankState;
  prefix: string;
}): BalanceSource {
  const contracts = new Map<string, string | undefined>();
  const contractOf = async (denom: string) => {
    if (!contracts.has(denom)) contracts.set(denom, await ctx.bank.contractOfDenom(denom));
    return contracts.get(denom);
  };
  return {
    deltas: (block) => erc20Deltas(eventsOf(block)),
    async balancesAt(pairs, height) {
      const out: bigint[] = [];
      for (let i = 0; i < pairs.length; i += LOOKUP_BATCH) {
        const chunk = pairs.slice(i, i + LOOKUP_BATCH).map((p) => ({ token: p.denom, account: p.account }));
        out.push(...(await ctx.evm.erc20BalancesAt(chunk, height)));
      }
      return out;
    },
    async snapshot(height) {
      const rows: BalanceRow[] = [];
      const aliases = new Map<string, string>();
      for (const address of await ctx.bank.accountsAt(height)) {
        const account = accountBytesFromString(address, ctx.prefix);
        for (const b of await ctx.bank.balancesAt(address, height)) {
          const contract = b.denom.startsWith('0x') ? b.denom.toLowerCase() : await contractOf(b.denom);
          if (contract === undefined || b.amount === 0n) continue;
          rows.push({ denom: contract, account, amount: b.amount });
          if (contract !== b.denom.toLowerCase()) aliases.set(b.denom.toLowerCase(), contract);
        }
      }
      return { rows, aliases: [...aliases].map(([alias, denom]) => ({ alias, denom })) };
    },
  };
}
