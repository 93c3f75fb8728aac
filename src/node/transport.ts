import { errors as undiciErrors } from 'undici';
import { AppError, type ErrorCode } from '../shared/errors.js';
import { redactUrl } from '../shared/config.js';
import type { Logger } from '../shared/logger.js';
import type { NodeEndpointView } from '../shared/node-endpoint.js';
import { createEndpointPool, type PoolEndpoint } from './endpoint-pool.js';
import type { EndpointProbe } from './endpoint-probes.js';
import type { HeightSpan } from './endpoint-routing.js';
import { refusalOf, type RefusalCheck } from './refusals.js';
import type { NodeMetricsSink, NodePurpose } from './metrics.js';

export interface TransportOptions {
  /** One surface of the node (rpc, rest, jsonrpc), for logs and metrics. */
  name: string;
  endpoints: string[];
  timeoutMs: number;
  maxConcurrent: number;
  metrics?: NodeMetricsSink;
  /** Reads each endpoint's chain and heights (docs/node-data.md §5); without it, no routing by height. */
  probe?: EndpointProbe;
  /** The chain every endpoint must serve (else the chain most endpoints answer with decides). */
  chainId?: string;
  logger?: Logger;
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
  /** The heights it reads: it goes to an endpoint that holds them (docs/node-data.md §5.2). */
  heights?: HeightSpan;
  /**
   * Reads whether an answer says the endpoint no longer holds `heights` (default `refusalOf`: the
   * words of CometBFT, the SDK and geth); a refused request goes to another endpoint at once.
   */
  refusal?: RefusalCheck;
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

/** A transport over an endpoint pool: what the ingest process reads of and tells its pool. */
export interface PooledTransport extends Transport {
  /** Every endpoint probed from now on must serve this chain (known once the chain is discovered). */
  expectChain(chainId: string): void;
  /** Each endpoint's chain, heights and health (docs/api.md §4.11). */
  endpoints(): NodeEndpointView[];
  /** Where a fresh index can start: the lowest height an endpoint of the chain holds (docs/node-data.md §5.2). */
  lowestHeld(): number | undefined;
}

/**
 * HTTP to one node surface with several endpoints: keep-alive pools, a concurrency cap,
 * per-request timeouts, routing by height and chain (endpoint-pool.ts), and rotation away from
 * endpoints that keep failing. Network failures, timeouts, 429 and 5xx without a JSON body become
 * retryable AppErrors; other answers are returned.
 */
export function createTransport(options: TransportOptions): PooledTransport {
  if (options.endpoints.length === 0)
    throw new AppError('invalid_config', `no ${options.name} endpoint configured`);
  const pool = createEndpointPool(options);
  const limiter = createLimiter(options.maxConcurrent);

  const fail = (ep: PoolEndpoint, code: ErrorCode, message: string, cause?: unknown): never => {
    const text = `${options.name} ${ep.url}: ${message}`;
    pool.failed(ep, text);
    options.metrics?.errors.inc({ surface: options.name, kind: code });
    // The surface rides along so a part waiting on the node can say which one (docs/api.md §4.1.1).
    throw new AppError(code, text, { cause, retryable: true, details: { surface: options.name } });
  };

  async function send(ep: PoolEndpoint, req: TransportRequest): Promise<TransportResponse> {
    ep.requests++;
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
    pool.succeeded(ep);
    return { status, text, endpoint: ep.url };
  }

  /**
   * An endpoint that turns out to have pruned the heights is not failing: the pool learns it and
   * the request goes to one that holds them; when none is left, `choose` says so (height_not_held).
   */
  async function routed(req: TransportRequest): Promise<TransportResponse> {
    await pool.ready();
    for (let misses = 0; ; misses++) {
      const ep = pool.choose(req.heights);
      const res = await send(ep, req);
      if (!req.heights) return res;
      const refusal = (req.refusal ?? refusalOf)(res, req.heights, ep.highest);
      if (!refusal) {
        pool.held(ep);
        return res;
      }
      pool.refused(ep, refusal, req.heights);
      if (misses >= pool.endpoints.length) return res;
    }
  }

  return {
    request: (req) => limiter(() => routed(req)),
    expectChain: (chainId) => pool.expectChain(chainId),
    endpoints: () => pool.views(),
    lowestHeld: () => pool.lowestHeld(),
    close: () => pool.close(),
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
