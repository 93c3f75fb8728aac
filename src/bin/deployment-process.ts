import type { FastifyInstance, FastifyServerFactory } from 'fastify';
import type { ChainCondition } from '../shared/chain-condition.js';
import { createLogger, type Logger } from '../shared/logger.js';
import type { DeployedChain, MutableChainDirectory } from '../api/deployment/directory.js';
import type { ApiSettings } from '../api/options.js';
import { createMetricsRegistry, mergedMetrics, type MetricsSource } from '../shared/metrics.js';
import { packageVersion } from '../shared/version.js';
import { createNodeWaits } from '../shared/node-waits.js';
import { createChainDatabases } from './chain-databases.js';
import { createChainRun } from './chain-run.js';
import { createPreparePool } from '../ingest/prepare/worker-pool.js';
import { chainsReloader, createChainSet, onSighup, type ReloadOutcome } from './chain-set.js';
import { shutdownSignal } from './context.js';
import type { DeployedChainConfig, DeploymentConfig } from './deployment-config.js';
import { openHttpPort, type HttpPort } from './http-port.js';

export interface DeploymentProcessOptions {
  config: Readonly<DeploymentConfig>;
  /** Serve every chain's API (`start`), or only /health, /ready, /metrics and /chains (`indexer`). */
  serveApi: boolean;
  /**
   * Reads the chains file again (docs/chains.md §6): the same loader, variables and flags as at
   * start. Absent: the chains are those of `config` for the process's life.
   */
  reloadConfig?: () => Readonly<DeploymentConfig>;
  /** Hands the reload over to its trigger; returns how to let go of it. Default: SIGHUP. */
  reloadOn?: (reload: () => Promise<ReloadOutcome>) => () => void;
  logger?: Logger;
  onListening?: (url: string) => void;
  /** Told after each commit of any chain (the demo's progress, tests). */
  onCommit?: (chainId: string, height: number) => void;
  /** Stops the deployment (tests, the demo); default: the first SIGINT/SIGTERM. */
  signal?: AbortSignal;
}

/**
 * `start` / `indexer` with a chains file (docs/chains.md): one port, one ingest run per chain, each
 * failing and recovering alone; the chains file read again on SIGHUP (docs/chains.md §6). Resolves once every
 * chain has stopped (signal, --until).
 */
export async function runDeploymentProcess(opts: DeploymentProcessOptions): Promise<void> {
  const { config } = opts;
  const { process: settings } = config;
  const logger = opts.logger ?? createLogger({ level: settings.logLevel, format: settings.logFormat });
  const signal = opts.signal ?? shutdownSignal(logger);
  const databases = createChainDatabases();
  // One set of prepare threads for every chain, chunks taken round robin (docs/chains.md §7).
  const preparePool =
    settings.prepareWorkers > 0 ? createPreparePool({ count: settings.prepareWorkers, logger }) : undefined;
  const set = createChainSet<DeployedChainConfig>({
    make: (chain, chainSignal) =>
      createChainRun({
        options: chain.ingest,
        api: opts.serveApi ? chain.api : undefined,
        databases,
        logger,
        signal: chainSignal,
        preparePool,
        windowShare: (): number => windowShareOf(set.chains.length),
        givesWay: (): boolean =>
          set.chains.some(
            (other) => other.chainId !== chain.ingest.chainId && other.condition().state === 'ok',
          ),
        ...(opts.onCommit ? { onCommit: opts.onCommit } : {}),
      }),
    logger,
    signal,
  });
  set.create(chainEntries(config));
  const registry = createMetricsRegistry();
  const metrics = mergedMetrics(() => [registry, ...set.chains.map((r) => r.registry)]);
  const readiness = () => deploymentReadiness(set.chains.map((r) => r.condition()));
  const port = await openHttpPort({
    port: settings.port,
    host: settings.host,
    registry: metrics,
    state: { readiness },
    waits: createNodeWaits(),
    limits: config.edge,
  });
  let app: FastifyInstance | undefined;
  let letGo: (() => void) | undefined;
  try {
    const served = await serveDeployment(port, set.chains, {
      settings: config.chains[0]!.api?.settings,
      defaultChainId: config.defaultChainId,
      logger,
      metrics,
      readiness,
    });
    app = served.app;
    set.publish(served.directory);
    if (opts.reloadConfig) {
      const load = opts.reloadConfig;
      const reload = chainsReloader(set, logger, () => {
        const next = load();
        return { entries: chainEntries(next), defaultChainId: next.defaultChainId };
      });
      letGo = (opts.reloadOn ?? onSighup)(reload);
    }
    opts.onListening?.(port.url);
    logger.info({ chains: set.chains.map((r) => r.chainId), url: port.url }, 'deployment listening');
    set.start();
    await set.ended();
  } finally {
    letGo?.();
    await app?.close();
    await port.close();
    await set.close();
    await preparePool?.close();
    logger.info(
      { heights: Object.fromEntries(set.chains.map((r) => [r.chainId, r.condition().height])) },
      'stopped',
    );
  }
}

/**
 * Each chain's part of a single chain's fetch window (chunks in flight, buffered txs) when `chains`
 * share the process: together they hold at most what two single chains would (docs/chains.md §8).
 * Blocks waiting in a window are waiting for the one main thread (or the shared prepare threads),
 * which the chains take in turn: a deeper window per chain only keeps more of them alive, longer.
 */
export function windowShareOf(chains: number): number {
  return Math.min(1, 2 / Math.max(1, chains));
}

const chainEntries = (config: Readonly<DeploymentConfig>) =>
  config.chains.map((chain) => ({ chainId: chain.ingest.chainId!, config: chain }));

/** The deployment's own API on the port, in front of each chain's (dispatch.ts). */
export async function serveDeployment(
  port: HttpPort,
  chains: readonly DeployedChain[],
  ctx: {
    /** The API's settings; absent (`indexer`): the defaults, for the deployment's few routes. */
    settings: Readonly<ApiSettings> | undefined;
    defaultChainId: string | undefined;
    logger: Logger;
    metrics: MetricsSource;
    readiness: () => { ready: boolean; reason?: string };
  },
): Promise<{ app: FastifyInstance; directory: MutableChainDirectory }> {
  // Loaded here: `indexer` loads the API only for these few routes.
  const [{ createDeploymentApp }, { createChainDirectory }, { createDispatcher }, { loadApiSettings }] =
    await Promise.all([
      import('../api/deployment/app.js'),
      import('../api/deployment/directory.js'),
      import('../api/deployment/dispatch.js'),
      import('../api/options.js'),
    ]);
  const directory = createChainDirectory(chains, ctx.defaultChainId);
  let own: Parameters<FastifyServerFactory>[0] | undefined;
  const app = await createDeploymentApp({
    directory,
    settings: ctx.settings ?? loadApiSettings({}),
    logger: ctx.logger,
    metrics: ctx.metrics,
    readiness: ctx.readiness,
    version: packageVersion(),
    serverFactory: (handler) => ((own = handler), port.server),
  });
  await app.ready();
  port.adopt(createDispatcher(directory, own!));
  port.release();
  return { app, directory };
}

/**
 * Ready once no chain is starting or catching up and one at least is ok: a stalled chain does not
 * hold the deployment back (an orchestrator restarting it would stop the healthy chains too).
 */
export function deploymentReadiness(chains: readonly ChainCondition[]): { ready: boolean; reason?: string } {
  const waiting = chains.find((c) => c.state === 'starting' || c.state === 'catching_up');
  if (waiting)
    return { ready: false, reason: `chain ${waiting.chainId} is ${waiting.state.replace('_', ' ')}` };
  if (!chains.some((c) => c.state === 'ok')) return { ready: false, reason: 'no chain is ingesting' };
  return { ready: true };
}
