import type { KeysetPlan } from '../pagination.js';
import type { JsonPage, ReaderContext } from './context.js';
import {
  EVM_INTERNAL_TX_TABLES,
  listAll,
  listByAccount,
  listByHash,
  listByHeight,
} from './sequence-tables.js';

/** EVM internal txs (`evm_internal_tx.data` is the 12-key JSON of docs/api.md §5.4). */
export interface EvmInternalTxReader {
  list(plan: KeysetPlan, o: { countTotal: boolean }): Promise<JsonPage>;
  byAccount(plan: KeysetPlan, o: { accountId: number; countTotal: boolean }): Promise<JsonPage>;
  byHeight(plan: KeysetPlan, o: { height: string; countTotal: boolean }): Promise<JsonPage>;
  byHash(plan: KeysetPlan, o: { hash: Uint8Array; countTotal: boolean }): Promise<JsonPage>;
  /**
   * Whether the EVM tx is known and its height traced: then its calls are stored (possibly none,
   * when the node could not trace it); otherwise the hash is unknown here.
   */
  isTraced(hash: Uint8Array): Promise<boolean>;
}

export function createEvmInternalTxReader(ctx: ReaderContext): EvmInternalTxReader {
  const tables = EVM_INTERNAL_TX_TABLES;
  return {
    list: (plan, o) => listAll(ctx, tables, plan, { ...o, msgTypeIds: undefined }),
    byAccount: (plan, o) =>
      listByAccount(ctx, tables, plan, { ...o, signerOnly: false, msgTypeIds: undefined }),
    byHeight: (plan, o) => listByHeight(ctx, tables, plan, { ...o, msgTypeIds: undefined }),
    byHash: (plan, o) => listByHash(ctx, tables, plan, o),
    async isTraced(hash) {
      const { rows } = await ctx.db.query(
        `SELECT 1 FROM evm_tx e JOIN checkpoint c ON c.stream = 'internal_tx' AND e.height <= c.height
          WHERE e.hash = $1 LIMIT 1`,
        [Buffer.from(hash)],
      );
      return rows.length > 0;
    },
  };
}
