import type { ProtoRegistry } from '../../shared/proto/registry.js';
import { renderRestTx } from '../../shared/proto/tx.js';
import { jsonbText } from '../../wire/json-text.js';
import { replaceStoredRestTx } from '../../wire/tx.js';
import { packTxText } from '../../wire/tx-packing.js';
import type { Db, Queryable } from '../driver/db.js';
import { storedText, storedTextColumns, type StoredTextRow } from '../readers/stored-json.js';

/**
 * Re-renders txs stored undecoded (docs/api.md §14) with a registry that knows their types: a
 * later release's, run by `rerender-documents` beside a live API and indexer.
 *
 *  - Only `tx.data` changes: the message type URLs, signer, account edges and counts of an
 *    undecoded tx were read from its bytes and events when it was stored, exactly as for a decoded
 *    tx; the unknown messages' JSON is all that was missing.
 *  - Batched and resumable: a batch rewrites its rows, deletes their `undecoded_tx` marks and moves
 *    `document_format` ('tx_undecoded': `rerender_after` the last sequence gone through, `version`
 *    the batches that rewrote rows) in one transaction. A stopped run resumes after the checkpoint;
 *    a finished run clears it, so the next release's run reads every mark left.
 *  - `document_format` is part of the store identity the API's row cache checks, so a rewritten
 *    row's old bytes are dropped once its batch commits (docs/api.md §13).
 *  - A tx the registry still cannot render fully keeps its mark and its text.
 */

const DOCUMENT = 'tx_undecoded';
const DEFAULT_BATCH_ROWS = 2_000;

export interface UndecodedRerenderOptions {
  /** The release's registry; called only when some tx is marked (building one takes seconds). */
  registry: () => ProtoRegistry;
  batchRows?: number;
  /** Called after each committed batch (a test stops the job from here). */
  onBatch?: (progress: UndecodedBatch) => void;
  /** Checked between batches: the job stops cleanly, its checkpoint committed. */
  signal?: AbortSignal;
}

export interface UndecodedBatch {
  /** Last sequence gone through (the checkpoint the batch committed). */
  after: number;
  upto: number;
  rows: number;
  rerendered: number;
}

export interface UndecodedReport {
  rowsRead: number;
  rowsRerendered: number;
  /** Marks left once the run stopped or finished (txs this registry cannot render either). */
  remaining: number;
  seconds: number;
  finished: boolean;
}

/** Undefined when no tx is marked undecoded. */
export async function rerenderUndecoded(
  db: Db,
  options: UndecodedRerenderOptions,
): Promise<UndecodedReport | undefined> {
  const { rows } = await db.query<{ upto: string | number | null; after: string | number | null }>(
    `SELECT (SELECT max(sequence) FROM undecoded_tx) AS upto,
            (SELECT rerender_after FROM document_format WHERE document = $1) AS after`,
    [DOCUMENT],
  );
  if (rows[0]?.upto == null) return undefined;
  const upto = Number(rows[0].upto);
  const registry = options.registry();
  const started = performance.now();
  const totals = { rowsRead: 0, rowsRerendered: 0 };
  let after = rows[0].after == null ? -1 : Number(rows[0].after);
  while (after < upto && !options.signal?.aborted) {
    const limit = options.batchRows ?? DEFAULT_BATCH_ROWS;
    const batch = await db.transaction((tx) => rerenderBatch(tx, registry, { after, upto, limit }));
    totals.rowsRead += batch.rows;
    totals.rowsRerendered += batch.rerendered;
    after = batch.after;
    options.onBatch?.({ upto, ...batch });
  }
  const finished = after >= upto;
  if (finished) {
    await db.query('UPDATE document_format SET rerender_after = NULL WHERE document = $1', [DOCUMENT]);
  }
  const left = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM undecoded_tx');
  const seconds = (performance.now() - started) / 1000;
  return { ...totals, remaining: left.rows[0]?.n ?? 0, seconds, finished };
}

async function rerenderBatch(
  tx: Queryable,
  registry: ProtoRegistry,
  at: { after: number; upto: number; limit: number },
): Promise<{ after: number; rows: number; rerendered: number }> {
  const { rows } = await tx.query<StoredTextRow & { sequence: string | number; raw: Uint8Array }>(
    `SELECT u.sequence, u.raw, ${storedTextColumns('tx', 't')} FROM undecoded_tx u JOIN tx t ON t.sequence = u.sequence
      WHERE u.sequence > $1 AND u.sequence <= $2 ORDER BY u.sequence LIMIT $3`,
    [at.after, at.upto, at.limit],
  );
  const sequences: number[] = [];
  const texts: string[] = [];
  for (const row of rows) {
    const rendered = renderRestTx(registry, row.raw);
    if (rendered.unknownTypes.length > 0 || rendered.unknownFields.length > 0) continue;
    sequences.push(Number(row.sequence));
    texts.push(replaceStoredRestTx(storedText(row).toString(), jsonbText(rendered.tx)));
  }
  if (sequences.length > 0) {
    await tx.query(
      `UPDATE tx AS t SET data = NULL, data_packed = v.packed
         FROM unnest($1::bigint[], $2::bytea[]) AS v(sequence, packed) WHERE t.sequence = v.sequence`,
      [sequences, texts.map(packTxText)],
    );
    await tx.query('DELETE FROM undecoded_tx WHERE sequence = ANY($1::bigint[])', [sequences]);
  }
  const last = rows.at(-1);
  const after = last === undefined ? at.upto : Number(last.sequence);
  await tx.query(
    `UPDATE document_format SET rerender_after = $2, version = version + $3 WHERE document = $1`,
    [DOCUMENT, after, sequences.length > 0 ? 1 : 0],
  );
  return { after, rows: rows.length, rerendered: sequences.length };
}
