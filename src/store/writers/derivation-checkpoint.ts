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

/**
 * The checkpoint row, locked for the batch's transaction, which must still stand at `expected`'s
 * height. Its sequence may differ from the one the stage holds: a `reindex --stage` swapped the
 * stage's rows in under the same height (docs/ingest.md §11.4), and the batch continues after them.
 * Taken before the batch writes any row, so the swap (which locks the row first too) and a batch
 * never wait on each other's locks.
 */
export async function lockDerivationCheckpoint(
  tx: Queryable,
  checkpointName: string,
  expected: DerivationCheckpoint,
): Promise<DerivationCheckpoint> {
  const { rows } = await tx.query<{ height: number; tx_sequence: number }>(
    'SELECT height, tx_sequence FROM checkpoint WHERE stream = $1 FOR UPDATE',
    [checkpointName],
  );
  const row = rows[0];
  if (!row || Number(row.height) !== expected.height)
    throw movedUnderUs(checkpointName, String(expected.height));
  return { height: expected.height, sequence: Number(row.tx_sequence) };
}

function movedUnderUs(checkpointName: string, expected: string): AppError {
  return new AppError(
    'checkpoint_moved',
    `the ${checkpointName} checkpoint moved under us (expected height ${expected}); is another indexer writing?`,
  );
}
