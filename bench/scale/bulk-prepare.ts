/**
 * The bulk builder's preparers (bench/scale/bulk.ts): worker threads each running the scale
 * chain's simulator in-process and the ingest's own chunk preparer over it (bulk-worker.ts), so a
 * block goes from the simulator to its rows without an HTTP round trip or a simulator process.
 * The simulator is closed-form (any height without its predecessors), so workers split the heights.
 */
import { Worker } from 'node:worker_threads';
import type { PreparedBlock } from '../../src/ingest/prepare/block.js';

export type { PreparedBlock };

export interface BulkWorkerData {
  /** The `rollup-indexer sim` flags, as commander names them (`txsPerBlock`, `fastSignatures` …). */
  simFlags: Record<string, string | boolean>;
  vm: 'move' | 'wasm' | 'evm';
  chainId: string;
  accountPrefix: string;
}
export interface BulkWorkerRequest {
  id: number;
  heights: number[];
}
export interface BulkWorkerReply {
  id: number;
  /** The worker thread's CPU seconds when it replied. */
  cpuSeconds: number;
  blocks?: (PreparedBlock | undefined)[];
  error?: string;
}

/** The simulator CLI's `--flag value` list as the flags object its option loader reads. */
export function simFlagsOf(argv: readonly string[]): Record<string, string | boolean> {
  const flags: Record<string, string | boolean> = {};
  for (let i = 0; i < argv.length; i++) {
    const name = argv[i]!.replace(/^--/, '').replace(/-(\w)/g, (_, c: string) => c.toUpperCase());
    const next = argv[i + 1];
    if (next === undefined || next.startsWith('--')) flags[name] = true;
    else flags[name] = argv[++i]!;
  }
  return flags;
}

/** Young generation as the ingest's prepare workers size it (src/ingest/prepare/worker-pool.ts). */
const YOUNG_GENERATION_MB = 192;

function startWorker(data: BulkWorkerData): Worker {
  const options = { workerData: data, resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB } };
  const entry = new URL('./bulk-worker.ts', import.meta.url).href;
  const bootstrap = `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); })`;
  return new Worker(bootstrap, { ...options, eval: true });
}

export interface BulkPreparers {
  /** Resolves once every worker's simulator and decoder are up. */
  ready: Promise<void>;
  prepare(heights: number[]): Promise<(PreparedBlock | undefined)[]>;
  /** The workers' threads' CPU seconds as of their latest replies. */
  cpuSeconds(): number;
  close(): Promise<void>;
}

/** `count` workers; chunks go to the worker with the fewest pending. A worker's error fails its chunk. */
export function createBulkPreparers(count: number, data: BulkWorkerData): BulkPreparers {
  const pending = new Map<
    number,
    { resolve: (b: (PreparedBlock | undefined)[]) => void; reject: (e: Error) => void }
  >();
  const load = new Array<number>(count).fill(0);
  const cpu = new Array<number>(count).fill(0);
  let nextId = 0;
  const workers = Array.from({ length: count }, (_, w) => {
    const worker = startWorker(data);
    worker.on('message', (m: BulkWorkerReply | { ready: true; cpuSeconds: number }) => {
      cpu[w] = m.cpuSeconds;
      if ('ready' in m) return;
      const p = pending.get(m.id);
      pending.delete(m.id);
      load[w]!--;
      if (m.error !== undefined) p?.reject(new Error(`bulk worker ${w}: ${m.error}`));
      else p?.resolve(m.blocks!);
    });
    worker.on('error', (err) => {
      for (const p of pending.values()) p.reject(err);
      pending.clear();
    });
    return worker;
  });
  const ready = Promise.all(
    workers.map(
      (worker) =>
        new Promise<void>((resolve, reject) => {
          const onMessage = (m: unknown) => {
            if (typeof m === 'object' && m !== null && 'ready' in m) {
              worker.off('message', onMessage);
              resolve();
            }
          };
          worker.on('message', onMessage);
          worker.once('error', reject);
        }),
    ),
  ).then(() => undefined);
  return {
    ready,
    prepare(heights) {
      const w = load.indexOf(Math.min(...load));
      load[w]!++;
      const id = nextId++;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        workers[w]!.postMessage({ id, heights } satisfies BulkWorkerRequest);
      });
    },
    cpuSeconds: () => cpu.reduce((a, b) => a + b, 0),
    async close() {
      await Promise.all(workers.map((w) => w.terminate()));
    },
  };
}
