import { Worker } from 'node:worker_threads';
import { AppError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import type { NodeMetrics } from '../../node/metrics.js';
import type { PrepareWorkerEndpoints } from '../../shared/node-endpoint.js';
import { ChunkFailedAt } from '../fetch/window.js';
import type { ChunkPreparer } from './chunk.js';
import type { PreparedBlock } from './block.js';
import { DEFAULT_TUNING } from '../pipeline.js';
import { createFairQueue, placesPerWorker } from './fair-queue.js';
import {
  errorFromWire,
  replayNodeMetrics,
  type PoolRequest,
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

/**
 * Chunks one worker prepares at once, at least: a single chain's whole window fits on one worker,
 * as when each chain had threads of its own; in a shared pool the places grow with the chains
 * attached so that each keeps one (placesPerWorker), and the rest wait in the pool's fair queue.
 */
const CHUNKS_PER_WORKER = DEFAULT_TUNING.maxChunksInFlight;

/** What a chain attached to a pool is told, in the main thread. */
export interface PrepareChainHooks {
  logger: Logger;
  nodeMetrics: NodeMetrics;
  onBalanceChanges?: ((taken: TakenBalanceChanges) => void) | undefined;
  /** Told each worker's pools whenever one answers, and [] once they stop (docs/api.md §4.11). */
  onEndpoints?: ((workers: PrepareWorkerEndpoints[]) => void) | undefined;
}

/**
 * Prepare worker threads shared by every chain of a process (docs/chains.md §7). Each attached
 * chain gets a ChunkPreparer; its chunks name it, every thread holds its node clients, and the
 * pool starts chunks round robin across chains (fair-queue.ts).
 */
export interface PreparePool {
  /** The chain's preparer on the pool's threads; its close() detaches the chain, not the threads. */
  attach(config: PrepareWorkerConfig, hooks: PrepareChainHooks): ChunkPreparer;
  close(): Promise<void>;
}

interface Slot {
  /** 1-based, as /status/endpoints numbers the workers. */
  index: number;
  /** Undefined once the thread died: a new one starts with the next attach. */
  worker: Worker | undefined;
  load: number;
}

interface Job {
  chain: Attached;
  heights: readonly number[];
  resolve: (items: (PreparedBlock | undefined)[]) => void;
  reject: (err: unknown) => void;
  settled: boolean;
}

interface Attached {
  id: number;
  config: PrepareWorkerConfig;
  hooks: PrepareChainHooks;
  /** Set once its chunks can only fail (a thread died, its clients could not open, detached). */
  broken: AppError | undefined;
  jobs: Set<Job>;
  endpoints: Map<Slot, PrepareWorkerEndpoints>;
}

/**
 * `count` worker threads fetching and preparing chunks; each chunk goes to the least busy one.
 * Answers and failures come back as the in-thread path gives them (a ChunkFailedAt, a retryable or
 * fatal AppError). A thread that dies fails, fatally, everything pending and every later chunk of
 * each chain attached then: a thread that crashed once is a bug or memory, not a node fault worth
 * retrying. A chain attached later (a deployment's chain retrying alone) gets a fresh thread.
 */
export function createPreparePool(ctx: { count: number; logger: Logger }): PreparePool {
  const queue = createFairQueue<Job>();
  const attached = new Map<number, Attached>();
  const inFlight = new Map<number, { job: Job; slot: Slot }>();
  let nextJob = 0;
  let nextChain = 0;
  let closing = false;

  /** Every chunk of the chain, queued or started, fails with `err`, and so will every later one. */
  const breakChain = (chain: Attached, err: AppError) => {
    chain.broken ??= err;
    queue.detach(chain.id);
    for (const job of [...chain.jobs]) settle(job, { err: chain.broken });
  };

  const slots: Slot[] = Array.from({ length: ctx.count }, (_, i) => ({
    index: i + 1,
    worker: undefined,
    load: 0,
  }));
  const onDeath = (slot: Slot, err: AppError) => {
    if (!slot.worker) return;
    slot.worker = undefined;
    slot.load = 0;
    for (const [id, started] of inFlight) if (started.slot === slot) inFlight.delete(id);
    // Each attached chain's clients in that thread are gone with it.
    for (const chain of attached.values()) breakChain(chain, err);
    dispatch();
  };
  const spawn = (slot: Slot) => {
    const worker = startWorker();
    slot.worker = worker;
    worker.on('message', (m: WorkerMessage) => onMessage(slot, m));
    worker.on('error', (err) => onDeath(slot, workerFailed(err.message, err)));
    worker.on('exit', (code) => {
      if (!closing) onDeath(slot, workerFailed(`exited with code ${code}`));
    });
  };
  slots.forEach(spawn);

  function dispatch() {
    for (;;) {
      const places = placesPerWorker(attached.size, slots.length, CHUNKS_PER_WORKER);
      const alive = slots.filter((s) => s.worker && s.load < places);
      const free = alive.reduce((sum, s) => sum + places - s.load, 0);
      const next = queue.take(free);
      if (!next) return;
      const slot = alive.reduce((a, b) => (b.load < a.load ? b : a));
      const id = nextJob++;
      slot.load++;
      inFlight.set(id, { job: next.job, slot });
      slot.worker!.postMessage({
        kind: 'chunk',
        chain: next.chain,
        id,
        heights: [...next.job.heights],
      } satisfies PoolRequest);
    }
  }

  function onMessage(slot: Slot, message: WorkerMessage) {
    const chain = attached.get(message.chain);
    if (message.kind === 'log') return forwardLog(chain?.hooks.logger ?? ctx.logger, message.line);
    if (message.kind === 'attach_failed') {
      if (chain) breakChain(chain, workerFailed(message.error.message));
      return;
    }
    const started = inFlight.get(message.id);
    if (started?.slot === slot) {
      inFlight.delete(message.id);
      slot.load--;
      queue.done(message.chain);
    }
    if (chain) answer(slot, chain, message);
    if (started) settle(started.job, outcomeOf(message));
    dispatch();
  }

  function answer(slot: Slot, chain: Attached, message: Extract<WorkerMessage, { kind: 'chunk' }>) {
    replayNodeMetrics(message.metrics, chain.hooks.nodeMetrics);
    chain.endpoints.get(slot)!.endpoints = message.endpoints;
    chain.hooks.onEndpoints?.([...chain.endpoints.values()].map((p) => ({ ...p })));
    if (message.taken.length > 0) chain.hooks.onBalanceChanges?.(message.taken);
  }

  function detach(chain: Attached) {
    if (!attached.delete(chain.id)) return;
    breakChain(chain, new AppError('prepare_workers_stopped', 'prepare workers stopped'));
    for (const slot of slots)
      slot.worker?.postMessage({ kind: 'detach', chain: chain.id } satisfies PoolRequest);
    chain.hooks.onEndpoints?.([]);
  }

  return {
    attach(config, hooks) {
      if (!closing) for (const slot of slots) if (!slot.worker) spawn(slot);
      const chain: Attached = {
        id: nextChain++,
        config,
        hooks,
        broken: closing ? new AppError('prepare_workers_stopped', 'prepare workers stopped') : undefined,
        jobs: new Set(),
        endpoints: new Map(slots.map((s) => [s, { worker: s.index, endpoints: [] }])),
      };
      attached.set(chain.id, chain);
      queue.attach(chain.id);
      for (const slot of slots)
        slot.worker?.postMessage({ kind: 'attach', chain: chain.id, config } satisfies PoolRequest);
      return {
        prepare(heights) {
          if (chain.broken) return Promise.reject(chain.broken);
          return new Promise((resolve, reject) => {
            const job: Job = { chain, heights, resolve, reject, settled: false };
            chain.jobs.add(job);
            queue.push(chain.id, job);
            dispatch();
          });
        },
        close: () => Promise.resolve(detach(chain)),
      };
    },
    async close() {
      closing = true;
      for (const chain of [...attached.values()]) detach(chain);
      await Promise.all(slots.map((s) => s.worker?.terminate()));
    },
  };
}

type Outcome = { items: (PreparedBlock | undefined)[] } | { err: unknown };

function settle(job: Job, outcome: Outcome): void {
  if (job.settled) return;
  job.settled = true;
  job.chain.jobs.delete(job);
  if ('items' in outcome) job.resolve(outcome.items);
  else job.reject(outcome.err);
}

/** A chunk's answer as the in-thread path would have given it. */
function outcomeOf(message: Extract<WorkerMessage, { kind: 'chunk' }>): Outcome {
  if (!message.error) return { items: message.items };
  const reason = errorFromWire(message.error);
  if (message.failedAt === undefined) return { err: reason };
  return { err: new ChunkFailedAt(message.failedAt, message.items, reason) };
}

/** One chain on threads of its own (the single-chain process): a pool of `count` with it alone attached. */
export function createPrepareWorkers(
  ctx: PrepareChainHooks & { count: number; config: PrepareWorkerConfig },
): ChunkPreparer {
  const pool = createPreparePool({ count: ctx.count, logger: ctx.logger });
  const preparer = pool.attach(ctx.config, ctx);
  return {
    prepare: preparer.prepare,
    async close() {
      await preparer.close();
      await pool.close();
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
function startWorker(): Worker {
  const options = {
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
