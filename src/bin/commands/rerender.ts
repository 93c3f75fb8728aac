import type { Command } from 'commander';
import { databaseTarget } from '../../shared/config.js';
import { InputError } from '../../shared/errors.js';
import { rerenderDocuments, type BatchProgress } from '../../store/writers/document-rerender.js';
import { rerenderUndecoded, type UndecodedReport } from '../../store/writers/undecoded-rerender.js';
import { createProtoRegistry } from '../../shared/proto/registry.js';
import { openDatabase } from '../context.js';

interface RerenderFlags {
  databaseUrl?: string;
  dataDir?: string;
  batchRows: string;
}

/**
 * `rollup-indexer rerender-documents`: brings stored documents of an older format version up to
 * this release's (docs/api.md, "Stored documents and their format versions"). A command of its
 * own, not a step of `migrate` or `start`: `migrate` stays quick and runs before the new release
 * starts, while this walks every stored row and is meant to run beside the live API and indexer;
 * the operator sees its progress, stops it with Ctrl-C, and runs it again to resume.
 */
export function registerRerender(program: Command): void {
  program
    .command('rerender-documents')
    .description(
      'Re-render stored documents of an older format version, and txs stored undecoded whose types this release knows, in batches (resumable)',
    )
    .option('--database-url <url>', 'PostgreSQL URL; absent = embedded PGlite (env DATABASE_URL or DB_DSN)')
    .option('--data-dir <dir>', 'PGlite data directory (env DATA_DIR, default ./data)')
    .option('--batch-rows <n>', 'rows per transaction', '2000')
    .action(async (flags: RerenderFlags) => {
      const batchRows = Number(flags.batchRows);
      if (!Number.isSafeInteger(batchRows) || batchRows < 1)
        throw new InputError(
          'invalid_option',
          `--batch-rows must be a positive integer, got ${flags.batchRows}`,
        );
      const target = databaseTarget(
        flags.databaseUrl ?? process.env.DATABASE_URL ?? process.env.DB_DSN,
        flags.dataDir ?? process.env.DATA_DIR,
      );
      const db = await openDatabase(target);
      const stop = new AbortController();
      const onSignal = () => stop.abort();
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
      try {
        const started = performance.now();
        const reports = await rerenderDocuments(db, {
          batchRows,
          signal: stop.signal,
          onBatch: (b) => console.log(batchLine(b, started)),
        });
        if (reports.length === 0) console.log('every stored document is in its current format');
        for (const r of reports) {
          const rate = r.seconds > 0 ? Math.round(r.rowsRead / r.seconds) : r.rowsRead;
          console.log(
            `${r.table}: format ${r.from} -> ${r.to} ${r.finished ? 'done' : 'stopped (run again to resume)'}: ` +
              `${r.rowsRead} rows read, ${r.rowsChanged} rewritten in ${r.seconds.toFixed(1)} s (${rate} rows/s)`,
          );
        }
        if (stop.signal.aborted) return;
        const undecoded = await rerenderUndecoded(db, {
          registry: () => createProtoRegistry(),
          batchRows,
          signal: stop.signal,
          onBatch: (b) =>
            console.log(
              `undecoded txs: through sequence ${b.after} of ${b.upto} (${b.rerendered} re-rendered)`,
            ),
        });
        console.log(undecodedLine(undecoded));
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
        await db.close();
      }
    });
}

/** docs/api.md §14: txs stored undecoded that this release's registry renders. */
function undecodedLine(r: UndecodedReport | undefined): string {
  if (r === undefined) return 'undecoded txs: none stored';
  const state = r.finished ? 'done' : 'stopped (run again to resume)';
  return `undecoded txs: ${state}: ${r.rowsRead} read, ${r.rowsRerendered} re-rendered, ${r.remaining} this release cannot render either`;
}

function batchLine(b: BatchProgress, started: number): string {
  const seconds = (performance.now() - started) / 1000;
  return `${b.table}: through sequence ${b.after} of ${b.upto} (${b.rows} read, ${b.changed} rewritten, ${seconds.toFixed(1)} s)`;
}
