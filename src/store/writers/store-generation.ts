import type { Queryable } from '../driver/db.js';

/**
 * Tells every API process that rows it may hold as immutable were replaced (docs/api.md §1.9).
 * Call it inside the transaction that replaces them — a `reindex` batch, a re-render batch — so
 * the new generation is visible exactly when the new rows are: each API process re-reads it with
 * the store's identity (at most every second) and drops its row cache and response cache when it
 * moved. The one line a job needs: `await bumpStoreGeneration(tx)`.
 */
export async function bumpStoreGeneration(tx: Queryable): Promise<void> {
  await tx.query('UPDATE store_generation SET generation = generation + 1');
}
