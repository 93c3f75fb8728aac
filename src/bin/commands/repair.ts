import type { Command } from 'commander';
import { z } from 'zod';
import {
  flagProblem,
  loadIngestOptions,
  parseFlags,
  type Env,
  type IngestOptions,
} from '../../shared/config.js';
import { InputError } from '../../shared/errors.js';
import { readChainMeta } from '../../store/readers/chain-meta.js';
import { createChainDatabases } from '../chain-databases.js';
import { loadChainIngestOptions } from '../deployment-config.js';
import { createMetricsRegistry } from '../../shared/metrics.js';
import type { Db } from '../../store/driver/db.js';
import { readStoredBounds } from '../../store/readers/stored-heights.js';
import type { Drift } from '../../ingest/repair/compare.js';
import { openNodeRows, type NodeRows } from '../../ingest/repair/node-rows.js';
import { abandonReindex, runReindex } from '../../ingest/repair/reindex.js';
import { abandonStageReindex, runStageReindex } from '../../ingest/repair/stage-reindex.js';
import { runVerify, verifyHeights, type VerifyReport } from '../../ingest/repair/verify.js';
import { STAGE_NAMES, type StageName } from '../../store/writers/stage-swap.js';
import { openDatabase } from '../context.js';
import { flagsAsEnv, type NodeFlags } from '../node-flags.js';

/**
 * `verify` and `reindex` (docs/operator.md "Checking and repairing the index"; the contract in
 * docs/ingest.md §11): the node's answers for stored heights against the stored rows, and those
 * rows written again. Both read the node settings as `indexer` does (flags or environment).
 */
export interface RepairFlags extends NodeFlags {
  from?: string;
  to?: string;
  sample?: string;
  seed?: string;
  batch?: string;
  concurrency?: string;
  json?: boolean;
  abandon?: boolean;
  stage?: string;
  state?: string;
  chain?: string;
}

const optionalInt = (flag: string, min: number) =>
  z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined) return undefined;
      const n = Number(value);
      if (Number.isSafeInteger(n) && n >= min) return n;
      return flagProblem(ctx, `${flag} must be an integer ≥ ${min}, got "${value}"`);
    });

const repairFlagsSchema = z
  .object({
    from: optionalInt('--from', 1),
    to: optionalInt('--to', 1),
    sample: optionalInt('--sample', 1),
    seed: optionalInt('--seed', 0),
    batch: optionalInt('--batch', 1),
    concurrency: optionalInt('--concurrency', 1),
    state: z
      .string()
      .optional()
      .transform((value, ctx) => {
        if (value === undefined || value === 'all') return value;
        const n = Number(value);
        if (Number.isSafeInteger(n) && n >= 0) return n;
        return flagProblem(ctx, `--state must be "all" or an integer ≥ 0, got "${value}"`);
      }),
    stage: z
      .string()
      .optional()
      .transform((value, ctx) => {
        if (value === undefined) return undefined;
        const stage = STAGE_NAMES.find((s) => s === value);
        return stage ?? flagProblem(ctx, `--stage must be one of ${STAGE_NAMES.join(', ')}, got "${value}"`);
      }),
  })
  .superRefine((f, ctx) => {
    if (f.stage !== undefined && (f.from !== undefined || f.to !== undefined))
      flagProblem(
        ctx,
        '--stage rebuilds the stage from its start to where it stands: --from / --to do not apply',
      );
  });

function withRepairNodeOptions(cmd: Command): Command {
  return cmd
    .option('--rpc-url <urls>', 'CometBFT RPC URL(s), comma-separated (env RPC_URL)')
    .option('--rest-url <urls>', 'Cosmos REST URL(s) (env REST_URL)')
    .option('--json-rpc-url <urls>', 'EVM JSON-RPC URL(s), EVM rollups (env JSON_RPC_URL)')
    .option('--database-url <url>', 'PostgreSQL URL; absent = embedded PGlite (env DATABASE_URL or DB_DSN)')
    .option('--data-dir <dir>', 'PGlite data directory (env DATA_DIR, default ./data)')
    .option('--from <h>', 'first height')
    .option('--to <h>', 'last height (default: the indexed height)')
    .option('--batch <n>', 'heights per node request / per transaction')
    .option('--chain <id>', 'with CHAINS_FILE: the chain to work on (its schema, on its shard; required)');
}

/**
 * The database and settings the command works on: the single-chain ones, or with CHAINS_FILE the
 * `--chain` entry's, on that chain's schema (docs/chains.md §6) — the deployment may run meanwhile.
 */
async function openRepairTarget(
  flags: RepairFlags,
  env: Env = process.env,
): Promise<{ db: Db; options: Readonly<IngestOptions> }> {
  const file = env.CHAINS_FILE?.trim();
  if (!file) {
    if (flags.chain !== undefined)
      throw new InputError('invalid_option', '--chain names a chain of CHAINS_FILE, which is not set');
    const options = loadIngestOptions(env, flagsAsEnv(flags));
    return { db: await openDatabase(options.database), options };
  }
  if (flags.chain === undefined)
    throw new InputError(
      'invalid_option',
      `CHAINS_FILE ${file} lists the chains: name the one to work on with --chain <id>`,
    );
  const options = loadChainIngestOptions(env, flagsAsEnv(flags), flags.chain);
  const { db, schema } = await createChainDatabases().open(flags.chain, options.database, { create: false });
  const meta = await readChainMeta(db).catch(() => undefined);
  if (!meta) {
    await db.close();
    throw new InputError('invalid_option', `--chain ${flags.chain}: no index of it yet (schema ${schema})`);
  }
  return { db, options };
}

/** The database and the node clients, closed whatever `fn` does. */
export async function withRepairContext<T>(
  flags: RepairFlags,
  fn: (db: Db, node: NodeRows, options: IngestOptions) => Promise<T>,
  env: Env = process.env,
): Promise<T> {
  const { db, options } = await openRepairTarget(flags, env);
  try {
    const node = await openNodeRows(
      db,
      {
        endpoints: options.endpoints,
        accountPrefix: options.accountPrefix,
        maxConcurrentRequests: options.maxConcurrentRequests,
        requestTimeoutMs: 30_000,
      },
      createMetricsRegistry({ defaultMetrics: false }),
    );
    try {
      return await fn(db, node, options);
    } finally {
      await node.close();
    }
  } finally {
    await db.close();
  }
}

export function registerRepairCommands(program: Command): void {
  withRepairNodeOptions(program.command('verify'))
    .description('Compare stored heights with the node; exit 0 when they agree, 1 on any difference')
    .option('--sample <n>', 'check n heights drawn from the range instead of all of it')
    .option('--seed <n>', 'seed of the sample (the same seed draws the same heights)', '1')
    .option('--concurrency <n>', 'batches in flight', '4')
    .option(
      '--state <n|all>',
      'NFT owners and rich-list balances: check n of each drawn by --seed, or all; 0 skips them',
      '100',
    )
    .option('--json', 'print the report as JSON')
    .action(async (flags: RepairFlags) => {
      const f = parseFlags(repairFlagsSchema, flags);
      const report = await withRepairContext(flags, async (db, node, options) => {
        const heights = await verifyHeights(db, {
          ...(f.from !== undefined ? { from: f.from } : {}),
          ...(f.to !== undefined ? { to: f.to } : {}),
          ...(f.sample !== undefined ? { sample: f.sample } : {}),
          ...(f.seed !== undefined ? { seed: f.seed } : {}),
        });
        return runVerify(db, node, {
          heights,
          accountPrefix: options.accountPrefix,
          ...(f.state !== 0 ? { state: { sample: f.state ?? 'all', seed: f.seed ?? 1 } } : {}),
          ...(f.batch !== undefined ? { batch: f.batch } : {}),
          ...(f.concurrency !== undefined ? { concurrency: f.concurrency } : {}),
        });
      });
      console.log(flags.json ? JSON.stringify(report) : verifyText(report));
      if (report.drifts.length > 0) process.exitCode = 1;
    });

  withRepairNodeOptions(program.command('reindex'))
    .description('Fetch, decode and write stored heights again, batch by batch beside a live API (resumable)')
    .option(
      '--stage <name>',
      `re-derive one stage from its start (${STAGE_NAMES.join(', ')}) instead of a range`,
    )
    .option('--abandon', 'drop an unfinished reindex (of --stage, when given) instead of running one')
    .action(reindexAction);
}

/** `reindex`: a range, or a stage with `--stage`; `--abandon` drops the unfinished job instead. */
async function reindexAction(flags: RepairFlags): Promise<void> {
  const f = parseFlags(repairFlagsSchema, flags);
  if (flags.abandon) {
    const { db } = await openRepairTarget(flags);
    try {
      console.log(f.stage ? await abandonStageReindex(db, f.stage) : await abandonReindex(db));
    } finally {
      await db.close();
    }
    return;
  }
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    console.log(
      f.stage
        ? await reindexStage(flags, f, f.stage, stop.signal)
        : await reindexRange(flags, f, stop.signal),
    );
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

type ParsedFlags = ReturnType<typeof parseFlags<typeof repairFlagsSchema>>;

/** Runs a stage reindex, printing each batch; returns the summary line. */
async function reindexStage(flags: RepairFlags, f: ParsedFlags, stage: StageName, signal: AbortSignal) {
  const r = await withRepairContext(flags, (db, node, options) =>
    runStageReindex(db, node, {
      stage,
      accountPrefix: options.accountPrefix,
      signal,
      ...(f.batch !== undefined ? { batch: f.batch } : {}),
      onBatch: (b) => console.log(`reindexed ${b.stage} through ${b.through} of ${b.to}`),
    }),
  );
  return (
    `reindex --stage ${r.stage} ${r.from}..${r.to} ${r.finished ? `done, ${r.rows} rows swapped in` : 'stopped (run it again to resume)'}: ` +
    `${r.heights} heights in ${r.seconds.toFixed(1)} s (${rate(r)} heights/s), ${r.nodeRequests} node requests`
  );
}

/** Runs a range reindex (default: every stored height), printing each batch; returns the summary line. */
async function reindexRange(flags: RepairFlags, f: ParsedFlags, signal: AbortSignal) {
  const r = await withRepairContext(flags, async (db, node) => {
    const stored = await readStoredBounds(db);
    return runReindex(db, node, {
      from: f.from ?? stored.lowest,
      to: f.to ?? stored.indexed,
      signal,
      ...(f.batch !== undefined ? { batch: f.batch } : {}),
      onBatch: (b) => console.log(`reindexed through ${b.through} of ${b.to}`),
    });
  });
  return (
    `reindex ${r.from}..${r.to} ${r.finished ? 'done' : 'stopped (run it again to resume)'}: ` +
    `${r.heights} heights in ${r.seconds.toFixed(1)} s (${rate(r)} heights/s), ${r.nodeRequests} node requests`
  );
}

const rate = (r: { heights: number; seconds: number }) =>
  r.seconds > 0 ? (r.heights / r.seconds).toFixed(1) : String(r.heights);

/** One line per difference, then the summary. */
function verifyText(report: VerifyReport): string {
  const lines = report.drifts.map((d: Drift) => {
    const [stored, node] = aroundFirstDifference(d.stored, d.node);
    const what = d.hash ?? d.key;
    return `height ${d.height} ${d.kind}${what ? ` ${what}` : ''}: stored ${stored}, node ${node}  GET ${d.route}`;
  });
  const perSecond =
    report.seconds > 0 ? (report.heights / report.seconds).toFixed(1) : String(report.heights);
  const perHeight = report.heights > 0 ? (report.nodeRequests / report.heights).toFixed(2) : '0';
  const heightsWith = new Set(report.drifts.map((d) => d.height)).size;
  const { state } = report;
  const checked = state
    ? `, ${state.nfts.checked} NFT owner(s) at ${state.nfts.height}` +
      (state.richList ? `, ${state.richList.checked} balance(s) at ${state.richList.height}` : '')
    : '';
  lines.push(
    `verify: ${report.heights} heights${checked} in ${report.seconds.toFixed(1)} s (${perSecond} heights/s, ` +
      `${report.nodeRequests} node requests, ${perHeight} per height): ` +
      (report.drifts.length === 0
        ? 'no difference'
        : `${report.drifts.length} difference(s) at ${heightsWith} height(s)`),
  );
  return lines.join('\n');
}

/** Long values (a tx's JSON) from a little before where they first differ, as JSON strings. */
function aroundFirstDifference(a: string, b: string): [string, string] {
  let at = 0;
  while (at < a.length && at < b.length && a[at] === b[at]) at += 1;
  const from = Math.max(0, at - 20);
  const cut = (text: string) =>
    `${from > 0 ? '…' : ''}${text.slice(from, from + 60)}${text.length > from + 60 ? '…' : ''}`;
  return [JSON.stringify(cut(a)), JSON.stringify(cut(b))];
}
