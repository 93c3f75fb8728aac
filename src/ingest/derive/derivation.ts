import type { Queryable } from '../../store/driver/db.js';
import type { DerivationCheckpoint } from '../../store/writers/derivation-checkpoint.js';
import type { StageName } from '../../store/writers/stage-swap.js';

export type { DerivationCheckpoint };

/**
 * A stage derives more rows from heights the block stream has already committed (EVM internal
 * txs, rich-list balances). It runs beside the block pipeline with its own checkpoint row, may lag
 * it, and commits each batch's rows and its checkpoint in one transaction: like the block stream,
 * it never skips or repeats a height.
 */
export interface Derivation<Work> {
  /** Checkpoint stream name and the `stage` label of its metrics. */
  readonly name: DerivationName;
  /**
   * Only when the stream has no checkpoint yet: reads what the stream starts from (for example a
   * snapshot of balances from the node; retried like `fetch`), and returns the height it stands at
   * and how to store it (in the transaction that creates the checkpoint). Without it the stream
   * starts just below the first indexed block.
   */
  init?(ctx: {
    firstBlockHeight: number;
    signal: AbortSignal;
  }): Promise<{ height: number; write(tx: Queryable): Promise<void> }>;
  /**
   * Reads what heights `from..to` (inclusive, all committed by the block stream) need, from the
   * database and the node. Retryable errors are retried by the runner with backoff; the heights
   * are never skipped.
   */
  fetch(from: number, to: number, signal: AbortSignal): Promise<Work>;
  /**
   * Writes the rows of one fetched batch inside `tx`; the runner moves the checkpoint to the
   * batch's last height in the same transaction. Returns the stream's new last sequence
   * (unchanged when the stage numbers nothing) and how many rows it wrote (for metrics).
   */
  write(tx: Queryable, work: Work, at: DerivationCheckpoint): Promise<{ sequence: number; rows: number }>;
  /** Called after the batch's transaction committed (e.g. to keep dictionary ids learnt in it). */
  committed?(): void;
  /** Called after the batch's transaction rolled back. */
  rolledBack?(): void;
}

/** The stages' names (their tables listed beside: src/store/writers/stage-swap.ts). */
export type DerivationName = StageName;
