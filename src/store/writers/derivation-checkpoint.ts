import { AppError } from '../../shared/errors.js';
import type { Queryable } from '../driver/db.js';

/** Where a stage stream stands: its rows up to `height` are stored. */
export interface DerivationCheckpoint {
  height: number;
  /** Last sequence the stream handed out (0 when the stream numbers nothing). */
  sequence: number;
}

/** The stream's checkpoint, or undefined when the stage has never run on this database. */
export async function loadDerivationCheckpoint(
  db: Queryable,
  stream: string,
): Promise<DerivationCheckpoint | undefined> {
  const { rows } = await db.query<{ height: number; tx_sequence: number }>(
    'SELECT height, tx_sequence FROM checkpoint WHERE stream = $1',
    [stream],
  );
  const row = rows[0];
  return row && { height: row.height, sequence: row.tx_sequence };
}

/** Creates the stream's checkpoint at `height`; fails if another process created it first. */
export async function createDerivationCheckpoint(
  tx: Queryable,
  stream: string,
  height: number,
): Promise<DerivationCheckpoint> {
  const { rows } = await tx.query(
    'INSERT INTO checkpoint (stream, height) VALUES ($1, $2) ON CONFLICT (stream) DO NOTHING RETURNING height',
    [stream, height],
  );
  if (rows.length === 0) throw movedUnderUs(stream, 'none');
  return { height, sequence: 0 };
}

/**
 * Moves the checkpoint from `from` to `to` inside the transaction that wrote the rows between them.
 * The guard on the old height turns a second writer on the same stream into an error, not a
 * duplicate.
 */
export async function advanceDerivationCheckpoint(
  tx: Queryable,
  stream: string,
  from: DerivationCheckpoint,
  to: DerivationCheckpoint,
): Promise<void> {
  const { rows } = await tx.query(
    `UPDATE checkpoint SET height = $3, tx_sequence = $4, updated_at = now()
      WHERE stream = $1 AND height = $2 RETURNING height`,
    [stream, from.height, to.height, to.sequence],
  );
  if (rows.length === 0) throw movedUnderUs(stream, String(from.height));
}

function movedUnderUs(stream: string, expected: string): AppError {
  return new AppError(
    'checkpoint_moved',
    `the ${stream} checkpoint moved under us (expected height ${expected}); is another indexer writing?`,
  );
}
