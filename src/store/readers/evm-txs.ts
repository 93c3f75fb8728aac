import type { KeysetPlan } from '../pagination.js';
import type { JsonPage, ReaderContext } from './context.js';
import { EVM_TX_TABLES, findByHash, listAll, listByAccount, listByHeight } from './sequence-tables.js';

/** EVM receipts (`evm_tx.data` is the 14-key receipt JSON of docs/api.md §5.3). */
export interface EvmTxReader {
  list(plan: KeysetPlan, o: { countTotal: boolean }): Promise<JsonPage>;
  byAccount(
    plan: KeysetPlan,
    o: { accountId: number; signerOnly: boolean; countTotal: boolean },
  ): Promise<JsonPage>;
  byHeight(plan: KeysetPlan, o: { height: string; countTotal: boolean }): Promise<JsonPage>;
  byHash(hash: Uint8Array): Promise<string | undefined>;
}

export function createEvmTxReader(ctx: ReaderContext): EvmTxReader {
  return {
    list: (plan, o) => listAll(ctx, EVM_TX_TABLES, plan, { ...o, msgTypeIds: undefined }),
    byAccount: (plan, o) => listByAccount(ctx, EVM_TX_TABLES, plan, { ...o, msgTypeIds: undefined }),
    byHeight: (plan, o) => listByHeight(ctx, EVM_TX_TABLES, plan, { ...o, msgTypeIds: undefined }),
    byHash: (hash) => findByHash(ctx, EVM_TX_TABLES, hash),
  };
}
