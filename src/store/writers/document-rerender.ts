import { AppError } from '../../shared/errors.js';
import { EVM_INTERNAL_TX_FORMAT_VERSION, renderEvmInternalTxJson } from '../../wire/evm-internal-tx.js';
import { EVM_TX_FORMAT_VERSION, renderEvmTxJson } from '../../wire/evm-tx.js';
import { TX_FORMAT_VERSION, renderTxResponseJson, txPartsFromStored } from '../../wire/tx.js';
import { TX_DICTIONARY_VERSION, packTxText } from '../../wire/tx-packing.js';
import type { Db, Queryable } from '../driver/db.js';
import { storedText, storedTextColumns, type StoredTextRow } from '../readers/stored-json.js';

/**
 * The re-render job: brings stored document texts of an older format version up to the version
 * their module (src/wire) renders today, in batches, beside a live API and indexer
 * (docs/api.md, "Stored documents and their format versions").
 *
 *  - Batched and resumable: each batch updates its rows and the document's checkpoint
 *    (`document_format.rerender_after`) in one transaction, so a stopped job loses at most the
 *    batch in flight and the next run starts after the checkpoint.
 *  - Idempotent: a row already in the current format renders to the same text and is not written;
 *    a run over finished documents reads nothing.
 *  - Beside a live API: an UPDATE takes ROW EXCLUSIVE on the table, which API reads (ACCESS SHARE)
 *    and the indexer's inserts do not wait for; the indexer never updates these rows, so the row
 *    locks a batch holds block no one. Rows the indexer writes meanwhile are already current.
 */

/** A stored document: where its text lives and how a stored text is rendered again. */
export interface StoredDocument {
  /** `document_format.document`, also the table holding the texts in `data`, keyed by `sequence`. */
  readonly table: 'tx' | 'evm_tx' | 'evm_internal_tx';
  /** The version the document's module renders today. */
  readonly version: number;
  /** The current format of a stored text of any older version. */
  rerender(text: string): string;
  /** Stored packed with the current dictionary (Cosmos txs from format 3, docs/ingest.md §9.2). */
  packed?: boolean;
}

export const STORED_DOCUMENTS: readonly StoredDocument[] = [
  {
    table: 'tx',
    version: TX_FORMAT_VERSION,
    rerender: (text) => renderTxResponseJson(txPartsFromStored(text)),
    packed: true,
  },
  {
    table: 'evm_tx',
    version: EVM_TX_FORMAT_VERSION,
    rerender: rerenderEvmTx,
  },
  { table: 'evm_internal_tx', version: EVM_INTERNAL_TX_FORMAT_VERSION, rerender: rerenderInternalTx },
];

/**
 * The renderer writes JSON.stringify's text with every `\u0000` escape turned into `\uFFFD`
 * (stringify never writes `\uFFFD` itself, it writes the character), so turning them back before
 * parsing gives the value the renderer was given, and rendering it again gives the same text.
 */
function rerenderEvmTx(text: string): string {
  return renderEvmTxJson(JSON.parse(text.replaceAll('\\uFFFD', '\\u0000')) as Record<string, unknown>);
}

function rerenderInternalTx(text: string): string {
  const d = JSON.parse(text) as Record<string, string | number>;
  const str = (key: string) => String(d[key] ?? '');
  return renderEvmInternalTxJson(
    {
      type: str('type'),
      input: str('input'),
      output: str('output'),
      value: str('value'),
      gas: str('gas'),
      gasUsed: str('gasUsed'),
    },
    {
      height: Number(d['height']),
      txHash: str('hash'),
      index: Number(d['index']),
      parentIndex: Number(d['parent_index']),
      fromHex: str('from'),
      toHex: str('to'),
    },
  );
}

export interface RerenderOptions {
  /** Rows read and written per transaction. */
  batchRows?: number;
  /** Called after each committed batch (progress lines; a test stops the job from here). */
  onBatch?: (progress: BatchProgress) => void;
  /** Checked between batches: the job stops cleanly, its checkpoint committed. */
  signal?: AbortSignal;
  documents?: readonly StoredDocument[];
}

export interface BatchProgress {
  table: string;
  /** Last sequence of the batch (the checkpoint it committed). */
  after: number;
  /** Sequence the run goes up to (the table's last row when it started). */
  upto: number;
  rows: number;
  changed: number;
}

export interface RerenderReport {
  table: string;
  from: number;
  to: number;
  rowsRead: number;
  rowsChanged: number;
  seconds: number;
  /** False when the signal stopped it before the last batch. */
  finished: boolean;
}

const DEFAULT_BATCH_ROWS = 2_000;

/** Runs the job for every document whose stored version is older than its module's. */
export async function rerenderDocuments(db: Db, options: RerenderOptions = {}): Promise<RerenderReport[]> {
  const reports: RerenderReport[] = [];
  for (const document of options.documents ?? STORED_DOCUMENTS) {
    if (options.signal?.aborted) break;
    const report = await rerenderDocument(db, document, options);
    if (report) reports.push(report);
  }
  return reports;
}

interface FormatRow {
  version: number;
  rerender_to: number | null;
  rerender_after: string | number | null;
}

async function rerenderDocument(
  db: Db,
  document: StoredDocument,
  options: RerenderOptions,
): Promise<RerenderReport | undefined> {
  const format = await readFormat(db, document.table);
  if (format.version > document.version || (format.rerender_to ?? 0) > document.version) {
    throw new AppError(
      'document_format_newer',
      `stored ${document.table} documents are in format ${format.rerender_to ?? format.version}, newer than this release's ${document.version}`,
    );
  }
  if (format.rerender_to === null && format.version === document.version) return undefined;
  if (format.rerender_to !== document.version) {
    await db.query('UPDATE document_format SET rerender_to = $2, rerender_after = NULL WHERE document = $1', [
      document.table,
      document.version,
    ]);
  }
  const resumeAfter = format.rerender_to === document.version ? Number(format.rerender_after ?? -1) : -1;
  const { rows } = await db.query<{ upto: string | number | null }>(
    `SELECT max(sequence) AS upto FROM ${document.table}`,
  );
  const upto = Number(rows[0]?.upto ?? -1);
  const started = performance.now();
  const totals = { rowsRead: 0, rowsChanged: 0 };
  let after = resumeAfter;
  while (after < upto) {
    if (options.signal?.aborted) break;
    const batch = await db.transaction((tx) =>
      rerenderBatch(tx, document, { after, upto, limit: options.batchRows ?? DEFAULT_BATCH_ROWS }),
    );
    totals.rowsRead += batch.rows;
    totals.rowsChanged += batch.changed;
    after = batch.after;
    options.onBatch?.({ table: document.table, upto, ...batch });
  }
  const finished = after >= upto;
  if (finished) {
    await db.query(
      'UPDATE document_format SET version = rerender_to, rerender_to = NULL, rerender_after = NULL WHERE document = $1',
      [document.table],
    );
  }
  const seconds = (performance.now() - started) / 1000;
  return { table: document.table, from: format.version, to: document.version, ...totals, seconds, finished };
}

async function readFormat(db: Queryable, table: string): Promise<FormatRow> {
  const { rows } = await db.query<FormatRow>(
    'SELECT version, rerender_to, rerender_after FROM document_format WHERE document = $1',
    [table],
  );
  const row = rows[0];
  if (!row)
    throw new AppError('document_format_missing', `document_format has no row for ${table}: run migrate`);
  return row;
}

/** One batch: reads rows after the checkpoint, writes those whose text changes, moves the checkpoint. */
async function rerenderBatch(
  tx: Queryable,
  document: StoredDocument,
  at: { after: number; upto: number; limit: number },
): Promise<{ after: number; rows: number; changed: number }> {
  const { rows } = await tx.query<StoredTextRow & { sequence: string | number }>(
    `SELECT sequence, ${storedTextColumns(document.table)} FROM ${document.table}
      WHERE sequence > $1 AND sequence <= $2 ORDER BY sequence LIMIT $3`,
    [at.after, at.upto, at.limit],
  );
  const sequences: number[] = [];
  const texts: string[] = [];
  for (const row of rows) {
    const stored = storedText(row).toString();
    const text = document.rerender(stored);
    const packedNow = row.data_packed != null && row.data_packed[0] === TX_DICTIONARY_VERSION;
    if (text === stored && (!document.packed || packedNow)) continue;
    sequences.push(Number(row.sequence));
    texts.push(text);
  }
  if (sequences.length > 0 && document.packed) {
    await tx.query(
      `UPDATE ${document.table} AS t SET data = NULL, data_packed = v.packed
         FROM unnest($1::bigint[], $2::bytea[]) AS v(sequence, packed) WHERE t.sequence = v.sequence`,
      [sequences, texts.map(packTxText)],
    );
  } else if (sequences.length > 0) {
    await tx.query(
      `UPDATE ${document.table} AS t SET data = v.data
         FROM unnest($1::bigint[], $2::text[]) AS v(sequence, data) WHERE t.sequence = v.sequence`,
      [sequences, texts],
    );
  }
  const last = rows.at(-1);
  const after = last === undefined ? at.upto : Number(last.sequence);
  await tx.query('UPDATE document_format SET rerender_after = $2 WHERE document = $1', [
    document.table,
    after,
  ]);
  return { after, rows: rows.length, changed: sequences.length };
}
