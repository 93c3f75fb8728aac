import type { KeysetPlan } from '../pagination.js';
import type { JsonPage, ReaderContext } from './context.js';
import {
  COSMOS_TX_TABLES,
  findByHash,
  listAll,
  listByAccount,
  listByHeight,
  type MsgTypeFilter,
} from './sequence-tables.js';

/** Cosmos txs (`tx.data` is the complete Tx JSON of docs/api.md §5.2). */
export interface TxReader {
  list(plan: KeysetPlan, o: { msgTypeIds: MsgTypeFilter; countTotal: boolean }): Promise<JsonPage>;
  byAccount(
    plan: KeysetPlan,
    o: { accountId: number; signerOnly: boolean; msgTypeIds: MsgTypeFilter; countTotal: boolean },
  ): Promise<JsonPage>;
  byHeight(
    plan: KeysetPlan,
    o: { height: string; msgTypeIds: MsgTypeFilter; countTotal: boolean },
  ): Promise<JsonPage>;
  byHash(hash: Uint8Array): Promise<string | undefined>;
}

export function createTxReader(ctx: ReaderContext): TxReader {
  return {
    list: (plan, o) => listAll(ctx, COSMOS_TX_TABLES, plan, o),
    byAccount: (plan, o) => listByAccount(ctx, COSMOS_TX_TABLES, plan, o),
    byHeight: (plan, o) => listByHeight(ctx, COSMOS_TX_TABLES, plan, o),
    byHash: (hash) => findByHash(ctx, COSMOS_TX_TABLES, hash),
  };
}
