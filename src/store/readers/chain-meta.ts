import type { VmType } from '../../shared/config.js';
import type { Db, Queryable } from '../driver/db.js';

export interface ChainMeta {
  chainId: string;
  vmType: VmType;
}

/** The chain identity ingest recorded (`chain_meta`), for an API started without CHAIN_ID/VM_TYPE. */
export async function readChainMeta(db: Queryable): Promise<ChainMeta | undefined> {
  const { rows } = await db.query<{ chain_id: string; vm_type: ChainMeta['vmType'] }>(
    'SELECT chain_id, vm_type FROM chain_meta LIMIT 1',
  );
  const row = rows[0];
  return row ? { chainId: row.chain_id, vmType: row.vm_type } : undefined;
}

/** Last committed block height (0 when nothing is indexed), read without any node. */
export async function readIndexedHeight(db: Db): Promise<number> {
  const { rows } = await db.query<{ height: string }>(
    "SELECT height::text AS height FROM checkpoint WHERE stream = 'blocks'",
  );
  return Number(rows[0]?.height ?? 0);
}

/** Every checkpoint by stream: `blocks` and each stage's (`internal_tx`, `rich_list`). */
export async function readCheckpointHeights(db: Queryable): Promise<Record<string, number>> {
  const { rows } = await db.query<{ stream: string; height: string }>(
    'SELECT stream, height::text AS height FROM checkpoint ORDER BY stream',
  );
  return Object.fromEntries(rows.map((r) => [r.stream, Number(r.height)]));
}
