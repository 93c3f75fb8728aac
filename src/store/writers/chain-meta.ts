import { InputError } from '../../shared/errors.js';
import type { VmType } from '../../shared/config.js';
import type { Queryable } from '../driver/db.js';

export interface ChainMeta {
  chainId: string;
  vmType: VmType;
}

export async function readChainMeta(db: Queryable): Promise<ChainMeta | undefined> {
  const { rows } = await db.query<{ chain_id: string; vm_type: VmType }>(
    'SELECT chain_id, vm_type FROM chain_meta',
  );
  const row = rows[0];
  return row ? { chainId: row.chain_id, vmType: row.vm_type } : undefined;
}

/** Records the chain on first use; refuses a database that already holds another chain. */
export async function ensureChainMeta(db: Queryable, meta: ChainMeta): Promise<void> {
  await db.query(
    'INSERT INTO chain_meta (chain_id, vm_type) VALUES ($1, $2) ON CONFLICT (singleton) DO NOTHING',
    [meta.chainId, meta.vmType],
  );
  const stored = await readChainMeta(db);
  if (stored && (stored.chainId !== meta.chainId || stored.vmType !== meta.vmType)) {
    throw new InputError(
      'chain_mismatch',
      `the database holds chain ${stored.chainId} (${stored.vmType}), but the node serves ${meta.chainId} (${meta.vmType}); use another database`,
    );
  }
}
