import { Pool, errors as undiciErrors } from 'undici';
import { AppError, type ErrorCode } from '../shared/errors.js';
import { redactUrl } from '../shared/config.js';
import type { NodeMetricsSink, NodePurpose } from './metrics.js';

export interface TransportOptions {
  /** One surface of the node (rpc, rest, jsonrpc), for logs and metrics. */
  name: string;
  endpoints: string[];
  timeoutMs: number;
  maxConcurrent: number;
  metrics?: NodeMetricsSink;
}

export interface TransportRequest {
  method: 'GET' | 'POST';
  /** Path and query, starting with '/'. */
  path: string;
  body?: string;
  headers?: Record<string, string>;
  /** What the request is for (metrics); 'other' when unsaid. */
  purpose?: NodePurpose;
  /** Queries it carries by purpose (a JSON-RPC batch); one of `purpose` when unsaid. */
  calls?: Partial<Record<NodePurpose, number>>;
}

export interface TransportResponse {
  status: number;
  text: string;
  endpoint: string;
}

export interface Transport {
  request(req: TransportRequest): Promise<TransportResponse>;
  close(): Promise<void>;
}

interface Endpoint {
  base: string;
  basePath: string;
  pool: Pool;
  consecutiveFailures: number;
  unhealthyUntil: number;
}

const UNHEALTHY_AFTER_FAILURES = 3;
const UNHEALTHY_FOR_MS = 10_000;

/**
 * HTTP to one node surface with several endpoints: keep-alive pools, a concurrency cap,
 * per-request timeouts, and rotation away from endpoints that keep failing. Network failures,
 * timeouts, 429 and 5xx without a JSON body become retryable AppErrors; other answers are returned.
 */
export function createTransport(options: TransportOptions): Transport {
  if (options.endpoints.length === 0)
    throw new AppError('invalid_config', `no ${options.name} endpoint configured`);
  const endpoints: Endpoint[] = options.endpoints.map((url) => {
    const u = new URL(url);
    return {
      base: redactUrl(url),
      basePath: u.pathname.replace(/\/+$/, ''),
      pool: new Pool(u.origin, {
        connections: options.maxConcurrent,
        pipelining: 1,
        keepAliveTimeout: 30_000,
      }),
      consecutiveFailures: 0,
      unhealthyUntil: 0,
    };
  });
  const limiter = createLimiter(options.maxConcurrent);
  let cursor = 0;

  const pick = (): Endpoint => {
    const now = Date.now();
    for (let i = 0; i < endpoints.length; i++) {
      const ep = endpoints[(cursor + i) % endpoints.length]!;
      if (ep.unhealthyUntil <= now) {
        cursor = (cursor + i + 1) % endpoints.length;
        return ep;
      }
    }
    // Every endpoint is marked unhealthy: try the one that recovers first rather than stall.
    return endpoints.reduce((a, b) => (a.unhealthyUntil <= b.unhealthyUntil ? a : b));
  };

  const fail = (ep: Endpoint, code: ErrorCode, message: string, cause?: unknown): never => {
    ep.consecutiveFailures++;
    if (ep.consecutiveFailures >= UNHEALTHY_AFTER_FAILURES) ep.unhealthyUntil = Date.now() + UNHEALTHY_FOR_MS;
    options.metrics?.errors.inc({ surface: options.name, kind: code });
    // The surface rides along so a part waiting on the node can say which one (docs/api.md §4.1.1).
    throw new AppError(code, `${options.name} ${ep.base}: ${message}`, {
      cause,
      retryable: true,
      details: { surface: options.name },
    });
  };

  async function request(req: TransportRequest): Promise<TransportResponse> {
    return limiter(async () => {
      const ep = pick();
      countRequest(options, req);
      const stopTimer = options.metrics?.latency.startTimer({ surface: options.name });
      let status: number;
      let text: string;
      try {
        const res = await ep.pool.request({
          method: req.method,
          path: ep.basePath + req.path || '/',
          headers: { 'content-type': 'application/json', ...req.headers },
          ...(req.body === undefined ? {} : { body: req.body }),
          headersTimeout: options.timeoutMs,
          bodyTimeout: options.timeoutMs,
        });
        status = res.statusCode;
        text = await res.body.text();
      } catch (err) {
        if (err instanceof undiciErrors.InvalidArgumentError) {
          throw new AppError('invalid_request', `${options.name}: ${err.message}`, { cause: err });
        }
        const timeout =
          err instanceof undiciErrors.HeadersTimeoutError || err instanceof undiciErrors.BodyTimeoutError;
        return fail(ep, timeout ? 'node_timeout' : 'node_unreachable', (err as Error).message, err);
      } finally {
        stopTimer?.();
      }
      if (status === 429) return fail(ep, 'node_rate_limited', 'HTTP 429');
      // CometBFT answers JSON-RPC errors with 500 + a JSON body; those are for the caller to read.
      if (status >= 500 && !looksLikeJson(text)) return fail(ep, 'node_http_error', `HTTP ${status}`);
      ep.consecutiveFailures = 0;
      return { status, text, endpoint: ep.base };
    });
  }

  return {
    request,
    async close() {
      await Promise.all(endpoints.map((ep) => ep.pool.close()));
    },
  };
}

/**
 * One request to one base URL on a transport of its own, closed afterwards: for the one-shot
 * reads of the CLI (a rollup's abci_info, the L1 VIP stage, a node's module accounts).
 */
export async function requestOnce(
  target: { name: string; baseUrl: string; timeoutMs: number },
  req: TransportRequest,
): Promise<TransportResponse> {
  const transport = createTransport({
    name: target.name,
    endpoints: [target.baseUrl],
    timeoutMs: target.timeoutMs,
    maxConcurrent: 1,
  });
  try {
    return await transport.request(req);
  } finally {
    await transport.close();
  }
}

/**
 * A one-shot read that failed, as `node_unreachable` (retryable): the transport's own message
 * already names the surface and the redacted URL; any other failure gets them added.
 */
export function unreachable(surface: string, url: string, err: unknown): AppError {
  const message = err instanceof AppError ? err.message : `${surface} ${redactUrl(url)}: ${errorText(err)}`;
  return new AppError('node_unreachable', message, { retryable: true, cause: err });
}

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));

function countRequest(options: TransportOptions, req: TransportRequest): void {
  const m = options.metrics;
  if (!m) return;
  const purpose = req.purpose ?? 'other';
  m.requests.inc({ surface: options.name, purpose });
  for (const [callPurpose, n] of Object.entries(req.calls ?? { [purpose]: 1 })) {
    if (n) m.calls.inc({ surface: options.name, purpose: callPurpose }, n);
  }
}

function looksLikeJson(text: string): boolean {
  const c = text.trimStart()[0];
  return c === '{' || c === '[';
}

/** A counting semaphore: at most `max` calls of fn run at once. */
export function createLimiter(max: number): <T>(fn: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async <T>(fn: () => Promise<T>): Promise<T> => {
    // A finishing call hands its slot straight to the next waiter, so `active` never overshoots.
    if (active >= max) await new Promise<void>((resolve) => waiting.push(resolve));
    else active++;
    try {
      return await fn();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else active--;
    }
  };
}
