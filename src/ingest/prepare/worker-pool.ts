import { Worker } from 'node:worker_threads';
import { AppError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import type { NodeMetrics } from '../../node/metrics.js';
import type { PrepareWorkerEndpoints } from '../../shared/node-endpoint.js';
import { ChunkFailedAt } from '../fetch/window.js';
import type { ChunkPreparer } from './chunk.js';
import type { PreparedBlock } from './block.js';
import {
  errorFromWire,
  replayNodeMetrics,
  type ChunkRequest,
  type PrepareWorkerConfig,
  type TakenBalanceChanges,
  type WorkerMessage,
} from './worker-messages.js';

/**
 * Young generation of a prepare worker: 3 x a 64 MB semi-space, what `--max-semi-space-size=64`
 * gives a process (measured 7-15 % less CPU in prepare's allocation-heavy work). Only a worker can
 * be given it: the main thread's is fixed at start.
 */
const WORKER_YOUNG_GENERATION_MB = 192;

interface Pending {
  resolve: (items: (PreparedBlock | undefined)[]) => void;
  reject: (err: unknown) => void;
}

/**
 * `count` worker threads fetching and preparing chunks; each chunk goes to the least busy one.
 * Answers and failures come back as the in-thread path gives them (a ChunkFailedAt, a retryable or
 * fatal AppError). A worker that dies fails everything pending and every later chunk (fatal): a
 * thread that crashed once is a bug or memory, not a node fault worth retrying.
 */
export function createPrepareWorkers(ctx: {
  count: number;
  config: PrepareWorkerConfig;
  logger: Logger;
  nodeMetrics: NodeMetrics;
  onBalanceChanges?: ((taken: TakenBalanceChanges) => void) | undefined;
  /** Told each worker's pools whenever one answers, and [] once they stop (docs/api.md §4.11). */
  onEndpoints?: ((workers: PrepareWorkerEndpoints[]) => void) | undefined;
}): ChunkPreparer {
  const pending = new Map<number, Pending>();
  const load = new Map<Worker, number>();
  let nextId = 0;
  let broken: AppError | undefined;
  let closing = false;

  const failAll = (err: AppError) => {
    broken ??= err;
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };
  const pools = new Map<Worker, PrepareWorkerEndpoints>();
  const onMessage = (worker: Worker, message: WorkerMessage) => {
    if (message.kind === 'log') return forwardLog(ctx.logger, message.line);
    replayNodeMetrics(message.metrics, ctx.nodeMetrics);
    pools.get(worker)!.endpoints = message.endpoints;
    ctx.onEndpoints?.([...pools.values()].map((p) => ({ ...p })));
    if (message.taken.length > 0) ctx.onBalanceChanges?.(message.taken);
    const p = pending.get(message.id);
    if (!p) return;
    pending.delete(message.id);
    load.set(worker, load.get(worker)! - 1);
    if (!message.error) return p.resolve(message.items);
    const reason = errorFromWire(message.error);
    if (message.failedAt === undefined) p.reject(reason);
    else p.reject(new ChunkFailedAt(message.failedAt, message.items, reason));
  };
  const workers = Array.from({ length: ctx.count }, (_, i) => {
    const worker = startWorker(ctx.config);
    load.set(worker, 0);
    pools.set(worker, { worker: i + 1, endpoints: [] });
    worker.on('message', (m: WorkerMessage) => onMessage(worker, m));
    worker.on('error', (err) => failAll(workerFailed(err.message, err)));
    worker.on('exit', (code) => {
      if (!closing) failAll(workerFailed(`exited with code ${code}`));
    });
    return worker;
  });

  return {
    prepare(heights) {
      if (broken) return Promise.reject(broken);
      const worker = workers.reduce((a, b) => (load.get(b)! < load.get(a)! ? b : a));
      const id = nextId++;
      load.set(worker, load.get(worker)! + 1);
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        worker.postMessage({ id, heights: [...heights] } satisfies ChunkRequest);
      });
    },
    async close() {
      closing = true;
      ctx.onEndpoints?.([]);
      failAll(new AppError('prepare_workers_stopped', 'prepare workers stopped'));
      await Promise.all(workers.map((w) => w.terminate()));
    },
  };
}

function workerFailed(what: string, cause?: unknown): AppError {
  return new AppError('prepare_worker_failed', `prepare worker failed: ${what}`, { cause });
}

/**
 * A worker running from the compiled `.js` loads its sibling file; under tsx or vitest (sources in
 * TypeScript) it first registers tsx in the new thread, which does not inherit the loader.
 */
function startWorker(config: PrepareWorkerConfig): Worker {
  const options = {
    workerData: config,
    resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB },
  };
  if (!import.meta.url.endsWith('.ts'))
    return new Worker(new URL('./worker-thread.js', import.meta.url), options);
  const entry = new URL('./worker-thread.ts', import.meta.url).href;
  const bootstrap = `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); })`;
  return new Worker(bootstrap, { ...options, eval: true });
}

/** A worker's pino line, logged by the main thread's logger at the same level. */
function forwardLog(logger: Logger, line: string): void {
  const {
    level,
    msg,
    time: _time,
    pid: _pid,
    hostname: _host,
    ...fields
  } = JSON.parse(line) as {
    level: number;
    msg?: string;
    [key: string]: unknown;
  };
  const label = logger.levels.labels[level] ?? 'info';
  logger[label as 'info']({ ...fields, thread: 'prepare' }, msg);
}
