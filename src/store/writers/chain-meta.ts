import { InputError } from '../../shared/errors.js';
import type { Queryable } from '../driver/db.js';
import { readChainMeta, type ChainMeta } from '../readers/chain-meta.js';

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
