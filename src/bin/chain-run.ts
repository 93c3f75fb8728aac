import type { FastifyInstance } from 'fastify';
import { conditionOf, type ChainCondition } from '../shared/chain-condition.js';
import { createInProcessFeed } from '../shared/commit-feed.js';
import type { IngestOptions } from '../shared/config.js';
import { errorMessage } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import { createMetricsRegistry } from '../shared/metrics.js';
import { createNodeWaits } from '../shared/node-waits.js';
import { createIngestMetrics } from '../ingest/metrics.js';
import type { Progress } from '../ingest/pipeline.js';
import { createIngestService, type IngestService } from '../ingest/service.js';
import type { PreparePool } from '../ingest/prepare/worker-pool.js';
import { abortableDelay } from '../node/retry.js';
import type { StreamSource } from '../api/stream/source.js';
import type { Db } from '../store/driver/db.js';
import { readChainMeta, readIndexedHeight, type ChainMeta } from '../store/readers/chain-meta.js';
import type { RequestHandler } from '../api/deployment/directory.js';
import { createChainApi } from './chain-api.js';
import type { ChainDatabases } from './chain-databases.js';
import type { SupervisedChain } from './chain-set.js';
import { migrateWhenReachable } from './ingest-process.js';
import type { ServedApiConfig } from './process-config.js';

/**
 * One chain of a deployment: its ingest, restarted alone when it fails, and its API (every
 * single-chain route, once its identity is known). `run` ingests until the chain's signal (the
 * deployment's, or its removal from the chains file) or `--until`.
 */
export type ChainRun = SupervisedChain;

export interface ChainRunContext {
  options: Readonly<IngestOptions>;
  /** The read API every chain serves (`start`); absent for `indexer`. */
  api: ServedApiConfig | undefined;
  databases: ChainDatabases;
  logger: Logger;
  signal: AbortSignal;
  /** Told after each of this chain's commits (the deployment's account stream). */
  onCommit?: (chainId: string, height: number) => void;
  /** The deployment's prepare threads, shared by every chain (docs/chains.md §7); absent: this thread. */
  preparePool?: PreparePool | undefined;
  /** This chain's part of the process's fetch window budget now (docs/chains.md §8). */
  windowShare?: () => number;
  /** Whether its catch-up gives way now: another chain is at its head (docs/chains.md §5). */
  givesWay?: () => boolean;
}

/** A failed chain waits this long before it tries again, doubling up to the cap. */
const RESTART_FIRST_MS = 1000;
const RESTART_CAP_MS = 30_000;

export function createChainRun(ctx: ChainRunContext): ChainRun {
  const { options } = ctx;
  const chainId = options.chainId!;
  const logger = ctx.logger.child({ chain_id: chainId });
  const registry = createMetricsRegistry({ defaultMetrics: false });
  registry.setDefaultLabels({ chain_id: chainId });
  const metrics = createIngestMetrics(registry);
  const waits = createNodeWaits();
  // Streams learn of commits from the pipeline itself, unless the API reads a replica.
  const commits = ctx.api && !ctx.api.readsReplica ? createInProcessFeed() : undefined;
  const known = {
    vm: options.vmType,
    started: false,
    height: 0,
    nodeHeight: undefined as number | undefined,
  };
  let failure: { message: string; since: Date } | undefined;
  let db: Db | undefined;
  /** Where the chain's rows are (docs/chains.md §3), known once its database opened. */
  let schema: string | undefined;
  let apiDb: Db | undefined;
  let api: { app: FastifyInstance; handler: RequestHandler } | undefined;
  let streams: StreamSource | undefined;
  let service: IngestService | undefined;

  const fail = (err: unknown) => {
    failure ??= { message: errorMessage(err), since: new Date() };
    failure.message = errorMessage(err);
  };

  async function openStorage(): Promise<Db> {
    const opened = await ctx.databases.open(chainId, options.database, { applicationName: 'rollup-indexer' });
    db = opened.db;
    schema = opened.schema;
    await migrateWhenReachable(db, logger, { trouble: (reason) => fail(new Error(reason)) }, ctx.signal);
    known.height = await readIndexedHeight(db);
    metrics.height.set(known.height);
    return db;
  }

  /** PGlite is shared in-process; PostgreSQL gets the API's own read-only pool (or a replica). */
  async function openApiDb(storage: Db): Promise<Db> {
    if (options.database.kind === 'pglite') return storage;
    const { target, maxConnections, statementTimeoutMs } = ctx.api!.database;
    const opened = await ctx.databases.open(chainId, target, {
      create: false,
      readOnly: true,
      statementTimeoutMs,
      maxConnections,
      preparedStatements: true,
      textAsBytes: true,
      applicationName: 'rollup-indexer-api',
    });
    if (opened.schema !== schema)
      throw new Error(`chain ${chainId}: API found schema ${opened.schema}, ingest ${schema}`);
    return opened.db;
  }

  async function serveApi(meta: ChainMeta): Promise<void> {
    if (!ctx.api || api) return;
    api = await createChainApi({
      settings: { ...ctx.api.settings, internalTx: options.internalTx },
      meta,
      db: apiDb!,
      logger,
      registry,
      readiness: async () => readiness(),
      waits,
      nodeEndpoints: () => service?.endpointReport() ?? { endpoints: [], prepare_workers: [] },
      ...(commits ? { commitFeed: commits } : {}),
      onStreams: (source) => (streams = source),
    });
  }

  function readiness() {
    const c = condition();
    if (c.state === 'ok') return { ready: true };
    return { ready: false, reason: c.lastError?.message ?? c.state.replace('_', ' ') };
  }

  const onCommit = (p: Progress) => {
    known.height = p.height;
    known.nodeHeight = p.nodeHeight;
    failure = undefined;
    commits?.committed();
    ctx.onCommit?.(chainId, p.height);
  };

  /** One attempt: storage (kept across attempts), the node, then ingest until stopped. */
  async function attempt(): Promise<void> {
    const storage = db ?? (await openStorage());
    if (ctx.api && !apiDb) apiDb = await openApiDb(storage);
    const stored = await readChainMeta(storage).catch(() => undefined);
    if (stored) {
      known.vm = stored.vmType;
      await serveApi(stored);
    }
    service = await createIngestService({
      options,
      logger,
      db: storage,
      registry,
      metrics,
      signal: ctx.signal,
      onNodeRetry: fail,
      waits,
      ...(ctx.preparePool ? { preparePool: ctx.preparePool } : {}),
    });
    known.vm = service.chain.vmType;
    await serveApi(service.chain);
    known.started = true;
    failure = undefined;
    try {
      await service.run({
        signal: ctx.signal,
        ...(options.untilHeight === undefined ? {} : { untilHeight: options.untilHeight }),
        ...(options.maxBlocksPerCommit === undefined
          ? {}
          : { tuning: { maxBlocksPerCommit: options.maxBlocksPerCommit } }),
        ...(ctx.windowShare ? { windowShare: ctx.windowShare } : {}),
        ...(ctx.givesWay ? { givesWay: ctx.givesWay } : {}),
        onCommit,
      });
    } finally {
      const closing = service;
      service = undefined;
      await closing.close();
    }
  }

  function condition(): ChainCondition {
    return conditionOf({ chainId, ...known, failure: failure ?? metrics.database.awaySince(), waits });
  }

  return {
    chainId,
    registry,
    condition,
    handler: () => api?.handler,
    db: () => apiDb,
    streams: () => (api ? streams : undefined),
    async run() {
      let wait = RESTART_FIRST_MS;
      while (!ctx.signal.aborted) {
        try {
          await attempt();
          return;
        } catch (err) {
          if (ctx.signal.aborted) return;
          fail(err);
          logger.error({ err: errorMessage(err), retryInMs: wait }, 'chain stalled; it restarts alone');
          await abortableDelay(wait, ctx.signal);
          wait = Math.min(wait * 2, RESTART_CAP_MS);
        }
      }
    },
    async close() {
      await api?.app.close();
      if (apiDb && apiDb !== db) await apiDb.close();
      await db?.close();
    },
  };
}
