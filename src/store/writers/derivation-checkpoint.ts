import { AppError } from '../../shared/errors.js';
import type { Queryable } from '../driver/db.js';

/** Where a derivation stands: its rows up to `height` are stored. */
export interface DerivationCheckpoint {
  height: number;
  /** Last sequence the derivation handed out (0 when it numbers nothing). */
  sequence: number;
}

/** The derivation's checkpoint, or undefined when it has never run on this database. */
export async function loadDerivationCheckpoint(
  db: Queryable,
  checkpointName: string,
): Promise<DerivationCheckpoint | undefined> {
  const { rows } = await db.query<{ height: number; tx_sequence: number }>(
    'SELECT height, tx_sequence FROM checkpoint WHERE stream = $1',
    [checkpointName],
  );
  const row = rows[0];
  return row && { height: row.height, sequence: row.tx_sequence };
}

/** Creates the derivation's checkpoint at `height`; fails if another process created it first. */
export async function createDerivationCheckpoint(
  tx: Queryable,
  checkpointName: string,
  height: number,
): Promise<DerivationCheckpoint> {
  const { rows } = await tx.query(
    'INSERT INTO checkpoint (stream, height) VALUES ($1, $2) ON CONFLICT (stream) DO NOTHING RETURNING height',
    [checkpointName, height],
  );
  if (rows.length === 0) throw movedUnderUs(checkpointName, 'none');
  return { height, sequence: 0 };
}

/**
 * Moves the checkpoint from `from` to `to` inside the transaction that wrote the rows between them.
 * The guard on the old height turns a second writer on the same checkpoint into an error, not a
 * duplicate.
 */
export async function advanceDerivationCheckpoint(
  tx: Queryable,
  checkpointName: string,
  from: DerivationCheckpoint,
  to: DerivationCheckpoint,
): Promise<void> {
  const { rows } = await tx.query(
    `UPDATE checkpoint SET height = $3, tx_sequence = $4, updated_at = now()
      WHERE stream = $1 AND height = $2 RETURNING height`,
    [checkpointName, from.height, to.height, to.sequence],
  );
  if (rows.length === 0) throw movedUnderUs(checkpointName, String(from.height));
}

function movedUnderUs(checkpointName: string, expected: string): AppError {
  return new AppError(
    'checkpoint_moved',
    `the ${checkpointName} checkpoint moved under us (expected height ${expected}); is another indexer writing?`,
  );
}
