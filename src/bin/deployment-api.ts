import type { RequestHandler } from '../api/deployment/directory.js';
import type { StreamSource } from '../api/stream/source.js';
import type { ChainCondition } from '../shared/chain-condition.js';
import { errorMessage } from '../shared/errors.js';
import { createLogger, type Logger } from '../shared/logger.js';
import { createMetricsRegistry, mergedMetrics } from '../shared/metrics.js';
import { createNodeWaits } from '../shared/node-waits.js';
import { abortableDelay } from '../node/retry.js';
import { createCommitListener } from '../store/driver/commit-listener.js';
import type { Db } from '../store/driver/db.js';
import { readChainMeta } from '../store/readers/chain-meta.js';
import { createChainApi } from './chain-api.js';
import { createChainDatabases, type ChainDatabases } from './chain-databases.js';
import {
  chainsReloader,
  createChainSet,
  onSighup,
  type ReloadOutcome,
  type SupervisedChain,
} from './chain-set.js';
import { shutdownSignal } from './context.js';
import type { DeploymentApiConfig } from './deployment-config.js';
import { deploymentReadiness, serveDeployment } from './deployment-process.js';
import { openHttpPort } from './http-port.js';

/**
 * `api` with a chains file: every chain's read API under `/chains/{chain_id}` from the databases
 * (or replicas) the indexer fills, without ingest (docs/chains.md §2). A chain whose index cannot
 * be opened yet is retried alone; the others serve meanwhile.
 */
export async function runDeploymentApi(
  config: Readonly<DeploymentApiConfig>,
  signal?: AbortSignal,
  reload?: {
    /** Reads the chains file again (docs/chains.md §6), as at start. */
    config: () => Readonly<DeploymentApiConfig>;
    /** Default: SIGHUP. */
    on?: (reload: () => Promise<ReloadOutcome>) => () => void;
  },
): Promise<void> {
  const logger = createLogger({ level: config.logLevel, format: config.logFormat, name: 'api' });
  const stop = signal ?? shutdownSignal(logger);
  const databases = createChainDatabases();
  type Entry = DeploymentApiConfig['chains'][number];
  const set = createChainSet<Entry>({
    make: (chain, chainSignal) =>
      createServedChain({ ...chain, config, databases, logger, signal: chainSignal }),
    logger,
    signal: stop,
  });
  const entriesOf = (c: Readonly<DeploymentApiConfig>) =>
    c.chains.map((chain) => ({ chainId: chain.chainId, config: chain }));
  set.create(entriesOf(config));
  const registry = createMetricsRegistry();
  const metrics = mergedMetrics(() => [registry, ...set.chains.map((c) => c.registry)]);
  const readiness = () => deploymentReadiness(set.chains.map((c) => c.condition()));
  const port = await openHttpPort({
    port: config.settings.port,
    host: config.settings.host,
    registry: metrics,
    state: { readiness },
    waits: createNodeWaits(),
    limits: config.edge,
  });
  const served = await serveDeployment(port, set.chains, {
    settings: config.settings,
    defaultChainId: config.defaultChainId,
    logger,
    metrics,
    readiness,
  });
  set.publish(served.directory);
  const letGo = reload
    ? (reload.on ?? onSighup)(
        chainsReloader(set, logger, () => {
          const next = reload.config();
          return { entries: entriesOf(next), defaultChainId: next.defaultChainId };
        }),
      )
    : undefined;
  logger.info({ url: port.url, chains: set.chains.map((c) => c.chainId) }, 'api listening');
  set.start();
  try {
    await new Promise<void>((resolve) =>
      stop.aborted ? resolve() : stop.addEventListener('abort', () => resolve()),
    );
  } finally {
    letGo?.();
    await served.app.close();
    await port.close();
    await set.close();
  }
}

/** A chain the `api` process serves: `run` opens its index, retrying until it is there (or it stops). */
type ServedChain = SupervisedChain;

const REOPEN_MS = 2000;

function createServedChain(ctx: {
  chainId: string;
  database: DeploymentApiConfig['chains'][number]['database'];
  config: Readonly<DeploymentApiConfig>;
  databases: ChainDatabases;
  logger: Logger;
  signal: AbortSignal;
}): ServedChain {
  const { chainId } = ctx;
  const logger = ctx.logger.child({ chain_id: chainId });
  const registry = createMetricsRegistry({ defaultMetrics: false });
  registry.setDefaultLabels({ chain_id: chainId });
  let opened: { db: Db; schema: string } | undefined;
  let db: Db | undefined;
  let api: { app: { close(): Promise<unknown> }; handler: RequestHandler } | undefined;
  let streams: StreamSource | undefined;
  let vm: ChainCondition['vm'];
  let failure: ChainCondition['lastError'];

  async function openOnce(): Promise<void> {
    const { database } = ctx;
    opened ??= await ctx.databases.open(chainId, database.target, {
      create: false,
      readOnly: true,
      statementTimeoutMs: database.statementTimeoutMs,
      maxConnections: database.maxConnections,
      preparedStatements: true,
      textAsBytes: true,
      applicationName: 'rollup-indexer-api',
    });
    db = opened.db;
    const meta = await readChainMeta(db);
    if (!meta) throw new Error(`chain ${chainId} has no index yet`);
    vm = meta.vmType;
    const target = database.target;
    api = await createChainApi({
      settings: ctx.config.settings,
      meta,
      db,
      logger,
      registry,
      readiness: async () => ({ ready: true }),
      onStreams: (source) => (streams = source),
      // The primary announces commits (NOTIFY); a replica's checkpoint is polled instead.
      ...(target.kind === 'postgres' && !ctx.config.readsReplica
        ? { commitFeed: createCommitListener({ url: target.url, logger, schema: opened.schema }) }
        : {}),
    });
  }

  return {
    chainId,
    registry,
    condition: () => ({
      chainId,
      vm,
      state: api ? 'ok' : failure ? 'stalled' : 'starting',
      height: 0,
      nodeHeight: undefined,
      lastError: api ? undefined : failure,
    }),
    handler: () => api?.handler,
    db: () => db,
    streams: () => (api ? streams : undefined),
    async run() {
      while (!api && !ctx.signal.aborted) {
        try {
          await openOnce();
          failure = undefined;
        } catch (err) {
          failure ??= { message: errorMessage(err), since: new Date() };
          failure.message = errorMessage(err);
          logger.warn({ err: failure.message }, 'chain index not readable yet; retrying');
          await abortableDelay(REOPEN_MS, ctx.signal);
        }
      }
    },
    async close() {
      await api?.app.close();
      await db?.close();
    },
  };
}
