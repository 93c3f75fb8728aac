import type { MessageSchema } from '../../shared/proto/schema.js';
import { AppError, type ErrorCode } from '../../shared/errors.js';
import type { NodeMetrics, NodeMetricsSink } from '../../node/metrics.js';
import type { RetryPolicy } from '../../node/retry.js';
import type { AssetDelta } from '../collect/rich-list-bank.js';
import type { NodeEndpointView } from '../../shared/node-endpoint.js';
import type { PreparedBlock } from './block.js';

/** What a prepare worker is started with (workerData): plain values only. */
export interface PrepareWorkerConfig {
  vm: 'move' | 'wasm' | 'evm';
  /** The chain every endpoint must serve (each worker's pools check it themselves). */
  chainId: string;
  endpoints: { rpc: string[]; rest: string[]; jsonRpc: string[] };
  maxConcurrentRequests: number;
  requestTimeoutMs: number;
  accountPrefix: string;
  /** NFT collection on (with its look-up attempts and backoff, undefined = the defaults). */
  nft: { lookupAttempts: number | undefined; retry: RetryPolicy | undefined } | undefined;
  /** Take the rich-list stage's balance changes from each fetched block. */
  balanceChanges: boolean;
  logLevel: string;
  /** Message schemas added to the decoder's registry (structured-cloned: plain objects and Maps). */
  protoExtensions?: readonly MessageSchema[];
}

/** A node metric update recorded in a worker, replayed into the main thread's registry. */
export type MetricEvent =
  | { m: 'latency'; surface: string; seconds: number }
  | { m: 'errors'; labels: { surface: string; kind: string }; n: number }
  | { m: 'requests' | 'calls'; labels: { surface: string; purpose: string }; n: number };

export interface WireError {
  name: string;
  message: string;
  stack: string | undefined;
  app: { code: ErrorCode; retryable: boolean; details: Record<string, unknown> } | undefined;
}

export type TakenBalanceChanges = { height: number; items: AssetDelta[] }[];

/**
 * Main → worker. A worker serves every chain attached to its pool (docs/chains.md §7): `attach`
 * opens the chain's node clients and preparer in the worker, each chunk names its chain by the
 * number the pool gave it, and `detach` closes them.
 */
export type PoolRequest =
  | { kind: 'attach'; chain: number; config: PrepareWorkerConfig }
  | { kind: 'chunk'; chain: number; id: number; heights: number[] }
  | { kind: 'detach'; chain: number };

/** Worker → main: a chunk's answer, with the chain's metrics and balance changes recorded since its last one. */
export type WorkerMessage =
  | {
      kind: 'chunk';
      chain: number;
      id: number;
      items: (PreparedBlock | undefined)[];
      /** Set when the chunk failed: `items` are then the items before `failedAt` (if any). */
      error?: WireError;
      failedAt?: number;
      metrics: MetricEvent[];
      taken: TakenBalanceChanges;
      /** The worker's own pools of the chain as they stand (docs/api.md §4.11). */
      endpoints: NodeEndpointView[];
    }
  /** The chain's clients could not be opened in the worker (a bad setting): every chunk of it fails. */
  | { kind: 'attach_failed'; chain: number; error: WireError }
  | { kind: 'log'; chain: number; line: string };

export function errorToWire(err: unknown): WireError {
  const e = err instanceof Error ? err : new Error(String(err));
  return {
    name: e.name,
    message: e.message,
    stack: e.stack,
    app:
      err instanceof AppError
        ? { code: err.code, retryable: err.retryable, details: jsonOnly(err.details) }
        : undefined,
  };
}

/** The error as the in-thread path would have raised it: same class family, code, message, retryability. */
export function errorFromWire(w: WireError): Error {
  const err = w.app
    ? new AppError(w.app.code, w.message, { retryable: w.app.retryable, details: w.app.details })
    : new Error(w.message);
  err.name = w.name;
  if (w.stack !== undefined) err.stack = w.stack;
  return err;
}

// Details are for logs; whatever a structured clone could not carry is dropped rather than fail the reply.
function jsonOnly(details: Record<string, unknown>): Record<string, unknown> {
  try {
    return JSON.parse(JSON.stringify(details)) as Record<string, unknown>;
  } catch {
    return {};
  }
}

/** A transport metrics sink that records into `out` (drained with each reply). */
export function recordingNodeMetrics(out: MetricEvent[]): NodeMetricsSink {
  const counter = (m: 'requests' | 'calls') => ({
    inc: (labels: { surface: string; purpose: string }, n = 1) => void out.push({ m, labels, n }),
  });
  return {
    latency: {
      startTimer({ surface }) {
        const t0 = process.hrtime.bigint();
        return () => out.push({ m: 'latency', surface, seconds: Number(process.hrtime.bigint() - t0) / 1e9 });
      },
    },
    errors: { inc: (labels, n = 1) => void out.push({ m: 'errors', labels, n }) },
    requests: counter('requests'),
    calls: counter('calls'),
  };
}

export function replayNodeMetrics(events: readonly MetricEvent[], into: NodeMetrics): void {
  for (const e of events) {
    if (e.m === 'latency') into.latency.observe({ surface: e.surface }, e.seconds);
    else if (e.m === 'errors') into.errors.inc(e.labels, e.n);
    else into[e.m].inc(e.labels, e.n);
  }
}
