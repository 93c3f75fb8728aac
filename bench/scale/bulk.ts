/**
 * Bulk builder for scale databases (issue 34; a bench, not a product command). Builds the scale
 * bench's chain (bench/scale/build.ts: the simulator's Move chain, 40 txs per block, 64 accounts,
 * fast signatures, NFT indexing on, the rich list off) without the per-block transactional write:
 * `--workers` worker threads (bulk-prepare.ts, bulk-worker.ts) each run the simulator in-process
 * (closed-form: any height without its predecessors, so they split the heights) and read it through
 * its own surface handlers without a socket, prepare each block with the ingest's own chunk
 * preparer (the node clients' parsing, the decoder, the NFT collector: src/ingest/prepare) and pack
 * each tx text as the writer does; this thread writes batches of blocks in one transaction each,
 * the large tables by `COPY … FROM STDIN` (copy-in.ts), through the block writer's own row shaping
 * (account edges, message-type edges, dictionaries) and its own set-based statements for the kept
 * counts, NFT rows and monikers. The per-tx tables' indexes are dropped for the load and built at
 * its end, by sort (deferred-indexes.ts; `indexBuild` in the result). A simulator process serves only the chain's wiring (the real
 * service's chain_meta and checkpoint, and its check of the checkpoint block's hash on a resume).
 * The checkpoint moves with every batch, so the real indexer resumes on top (same chain, same
 * hashes), and an interrupted build (Ctrl-C: after the batch being written) resumes too.
 *
 *   npx tsx bench/scale/bulk.ts --txs 1000000 [--db-name ri_bench_bulk] [--workers 2] [--batch-blocks 250]
 *     [--real-on-top N]   (then N blocks by the real ingest service, resuming on the bulk checkpoint)
 *     [--keep-indexes]    (maintain the per-tx tables' indexes row by row instead of building them at
 *                          the end: deferred-indexes.ts; a database is usable once a build has returned)
 *   npx tsx bench/scale/bulk.ts --verify-100k [--txs 100000] [--db-name ri_bench_bulk: <name>_real and
 *     <name>_copy] [--duration 5] [--connections 50] [--keep]
 *     [--reuse-real]   (a real build kept by --keep at the same height is not built again)
 *
 * build: prints one JSON object: the rate, CPU seconds per 1,000 blocks (40,000 txs) of this whole
 *   process (`bulk`: simulators, decoding and packing in the workers, the writing thread, V8's
 *   helper threads), of the writing thread and of the workers' threads (/proc/thread-self/stat),
 *   and of the PostgreSQL backend; host load. Stops below the scale bench's free-disk floor.
 * --verify-100k: builds `--txs` (100,000) both ways, through the real ingest service and in bulk,
 *   into two fresh databases and prints one JSON object: bytes per table each way, as built and after
 *   `VACUUM FULL` of both (bound, on the latter: within 10 % for every table holding ≥ 1 % of the
 *   bytes; bulk-verify.ts says why), each route class's p50/p99 each way (bound:
 *   within 1.2x; bench/scale/routes.ts under wrk, cache off, both APIs up, each class run real,
 *   bulk, bulk, real and each side's better run kept; CPU per request beside it), the kept counts
 *   against a recount in both, and a digest of every row by content (accounts and message types by
 *   value, not by id; the packed tx texts byte for byte) that must be equal. Exit status 1 when a
 *   bound fails. Drops both databases unless --keep.
 */
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { cpuSeconds } from '../lib/http-load.js';
import { SCALE_CHAIN, assertDiskRoom, ensureDatabase, freeDiskBytes, ingestTo } from './build.js';
import { bulkBuild } from './bulk-build.js';
import { vacuumAnalyze, verifyBothWays } from './bulk-verify.js';

const log = (message: string) =>
  process.stderr.write(`[bench:bulk ${new Date().toISOString().slice(11, 19)}] ${message}\n`);

async function main(): Promise<void> {
  const { values: args } = parseArgs({
    options: {
      'db-name': { type: 'string', default: 'ri_bench_bulk' },
      'admin-url': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
      txs: { type: 'string' },
      workers: { type: 'string', default: '2' },
      'batch-blocks': { type: 'string', default: '250' },
      'verify-100k': { type: 'boolean', default: false },
      duration: { type: 'string', default: '5' },
      connections: { type: 'string', default: '50' },
      port: { type: 'string', default: '18091' },
      keep: { type: 'boolean', default: false },
      'reuse-real': { type: 'boolean', default: false },
      'real-on-top': { type: 'string', default: '0' },
      'keep-indexes': { type: 'boolean', default: false },
    },
  });
  // Ctrl-C ends a build after the batch being written: it still builds the deferred indexes, vacuums
  // and prints its rate.
  const stop = new AbortController();
  process.once('SIGINT', () => stop.abort());
  const build = (url: string, toHeight: number) =>
    bulkBuild({
      url,
      toHeight,
      workers: Number(args.workers),
      batchBlocks: Number(args['batch-blocks']),
      deferIndexes: !args['keep-indexes'],
      log,
      signal: stop.signal,
    });
  if (args['verify-100k']) {
    const txs = Number(args.txs ?? 100_000);
    const report = await verifyBothWays({
      adminUrl: args['admin-url']!,
      dbName: args['db-name']!,
      toHeight: Math.ceil(txs / SCALE_CHAIN.txsPerBlock),
      seconds: Number(args.duration),
      connections: Number(args.connections),
      port: Number(args.port),
      keep: args.keep!,
      reuseReal: args['reuse-real']!,
      log,
      real: (url, toHeight) => ingestTo(url, toHeight, log, cpuSeconds),
      bulk: build,
    });
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    process.exitCode = report.pass ? 0 : 1;
    return;
  }
  await assertDiskRoom('bulk build');
  const url = await ensureDatabase(args['admin-url']!, args['db-name']!);
  const toHeight = Math.ceil(Number(args.txs ?? 1_000_000) / SCALE_CHAIN.txsPerBlock);
  const load1 = loadavg()[0];
  log(`bulk building ${args['db-name']} to height ${toHeight} ...`);
  const run = await build(url, toHeight);
  log('VACUUM ANALYZE ...');
  const vacuumSeconds = await vacuumAnalyze(url);
  // The real indexer resumes on top (its check of the checkpoint block's hash included).
  const onTop = Number(args['real-on-top']);
  const realOnTop = onTop > 0 ? await ingestTo(url, run.toHeight + onTop, log, cpuSeconds) : undefined;
  process.stdout.write(
    `${JSON.stringify({
      bench: 'scale-bulk-build',
      date: new Date().toISOString(),
      database: args['db-name'],
      chain: SCALE_CHAIN,
      workers: Number(args.workers),
      batchBlocks: Number(args['batch-blocks']),
      deferIndexes: !args['keep-indexes'],
      run,
      vacuumSeconds,
      ...(realOnTop ? { realOnTop } : {}),
      freeDiskGb: Math.round((await freeDiskBytes()) / 1024 ** 3),
      machine: { loadAvg1mBefore: load1, loadAvg1mAfter: loadavg()[0] },
    })}\n`,
  );
}

await main();
