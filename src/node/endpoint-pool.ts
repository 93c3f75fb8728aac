import { errors as undiciErrors, Pool } from 'undici';
import { AppError } from '../shared/errors.js';
import { redactUrl } from '../shared/config.js';
import type { Logger } from '../shared/logger.js';
import type { NodeEndpointView } from '../shared/node-endpoint.js';
import type { EndpointProbe, ProbeSend } from './endpoint-probes.js';
import type { Refusal } from './refusals.js';
import {
  describeEndpoints,
  lagBehind,
  lowestHeld,
  routeRequest,
  spanText,
  type EndpointStatus,
  type HeightSpan,
} from './endpoint-routing.js';

/** One endpoint of a surface: what the routing reads, and its connections. */
export interface PoolEndpoint extends EndpointStatus {
  pool: Pool;
  basePath: string;
  consecutiveFailures: number;
  /** Without a probe, a down endpoint is tried again from then on. */
  downUntil: number;
  lastProbeAt: number;
  probing: Promise<void> | undefined;
  /** Requests routed to it (probes not counted). */
  requests: number;
  /** Refusals in a row that named no lowest height (each doubles the guess past the refused height). */
  refusalStreak: number;
}

export interface EndpointPoolOptions {
  name: string;
  endpoints: string[];
  maxConcurrent: number;
  timeoutMs: number;
  /**
   * How long start-up waits for each endpoint's first probe (default the smaller of 5 s and
   * `timeoutMs`): one that has not answered by then holds nothing back; its probe goes on.
   */
  firstProbeWaitMs?: number | undefined;
  /** Reads an endpoint's chain and heights; without it endpoints are taken on trust (one-shot reads). */
  probe?: EndpointProbe | undefined;
  /** The chain every endpoint must serve; else the chain most endpoints answer with decides. */
  chainId?: string | undefined;
  logger?: Logger | undefined;
}

const FAILURES_BEFORE_DOWN = 3;
/** Without a probe: how long an endpoint that keeps failing is skipped. */
const DOWN_FOR_MS = 10_000;
/** How often the heights of a healthy endpoint are read again. */
const REFRESH_MS = 5_000;
/** How often an endpoint that is down or of another chain is asked again. */
const REPROBE_MS = 1_000;
/** The longest start-up waits for an endpoint's first probe by default. */
const FIRST_PROBE_WAIT_MS = 5_000;

/**
 * The endpoints of one node surface (docs/node-data.md §5): each one's chain, heights and health,
 * read by a probe at start, every few seconds, and before an endpoint that was down is used again.
 */
export function createEndpointPool(options: EndpointPoolOptions) {
  const endpoints = options.endpoints.map((url) =>
    openEndpoint(url, options.maxConcurrent, options.probe ? 'unprobed' : 'healthy'),
  );
  let expected = options.chainId;
  let firstRound: Promise<void> | undefined;
  let turn = 0;

  const judgeChain = (ep: PoolEndpoint): void => judgeEndpointChain(ep, expected, options);

  const probe = (ep: PoolEndpoint): Promise<void> => {
    ep.probing ??= runProbe(ep, options)
      .then(() => judgeChain(ep))
      .finally(() => {
        ep.lastProbeAt = Date.now();
        ep.probing = undefined;
      });
    return ep.probing;
  };

  /** Without a configured chain, the chain most answering endpoints serve decides (ties: configured first). */
  const settleChain = (): void => {
    if (expected !== undefined) return;
    expected = majorityChain(endpoints);
    endpoints.forEach(judgeChain);
  };

  /** Background probes: heights of the healthy refreshed, the others asked whether they are back. */
  const refresh = (now: number): void => {
    if (!options.probe) {
      for (const ep of endpoints) if (ep.health === 'down' && ep.downUntil <= now) ep.health = 'healthy';
      return;
    }
    for (const ep of endpoints) {
      const every = ep.health === 'healthy' ? REFRESH_MS : REPROBE_MS;
      if (!ep.probing && now - ep.lastProbeAt >= every) void probe(ep);
    }
  };

  return {
    endpoints,
    /**
     * Every endpoint probed once, and the chain settled: before the first request. Each probe is
     * bounded by its timeout; an endpoint that has not answered by then stays `unprobed` (unknown,
     * not asked) and is probed again in the background.
     */
    ready(): Promise<void> {
      if (!options.probe) return Promise.resolve();
      const waitMs = options.firstProbeWaitMs ?? Math.min(FIRST_PROBE_WAIT_MS, options.timeoutMs);
      firstRound ??= Promise.all(endpoints.map((ep) => boundedWait(probe(ep), ep, waitMs, options))).then(
        settleChain,
      );
      return firstRound;
    },
    expectChain(chainId: string): void {
      expected = chainId;
      endpoints.forEach(judgeChain);
    },
    /** The endpoint for a request, or the error saying why none can take it. */
    choose(span: HeightSpan | undefined): PoolEndpoint {
      settleChain();
      refresh(Date.now());
      const route = routeRequest(endpoints, span, turn++);
      if (route.kind === 'endpoint') return endpoints[route.index]!;
      if (route.kind === 'wait' && !options.probe) return soonestBack(endpoints, route.holders);
      throw route.kind === 'wait'
        ? waitError(options.name, endpoints, route.holders, span)
        : notHeldError(options.name, endpoints, span, expected);
    },
    succeeded(ep: PoolEndpoint): void {
      ep.consecutiveFailures = 0;
    },
    failed(ep: PoolEndpoint, message: string): void {
      ep.consecutiveFailures++;
      if (ep.consecutiveFailures < FAILURES_BEFORE_DOWN || ep.health !== 'healthy') return;
      ep.health = 'down';
      ep.error = message;
      ep.downUntil = Date.now() + DOWN_FOR_MS;
    },
    /** The endpoint answered that it no longer holds the heights asked (docs/node-data.md §5.2). */
    refused: (ep: PoolEndpoint, refusal: Refusal, span: HeightSpan): void =>
      learnRefusal(ep, refusal, span.to - span.from + 1),
    /** The endpoint answered heights it holds: a later refusal starts its guess afresh. */
    held(ep: PoolEndpoint): void {
      ep.refusalStreak = 0;
    },
    /** The lowest height an endpoint of the chain holds or may hold (one that is down counts). */
    lowestHeld: (): number | undefined => lowestHeld(endpoints),
    views: (): NodeEndpointView[] => endpoints.map((ep) => endpointView(endpoints, ep, options.name)),
    async close(): Promise<void> {
      await Promise.all(endpoints.map((ep) => ep.pool.close()));
    },
  };
}

/** Only a probe's answer moves an endpoint into or out of `wrong_chain`; going in is logged once. */
function judgeEndpointChain(
  ep: PoolEndpoint,
  expected: string | undefined,
  options: EndpointPoolOptions,
): void {
  if (expected === undefined || ep.chainId === undefined) return;
  if (ep.chainId === expected) {
    if (ep.health === 'wrong_chain') ep.health = 'healthy';
    return;
  }
  if (ep.health !== 'wrong_chain') {
    ep.error = `${options.name} ${ep.url} serves chain ${ep.chainId}, expected ${expected}: taken out of the pool`;
    options.logger?.error(
      { surface: options.name, endpoint: ep.url, chainId: ep.chainId, expected },
      ep.error,
    );
  }
  ep.health = 'wrong_chain';
}

function endpointView(
  endpoints: readonly PoolEndpoint[],
  ep: PoolEndpoint,
  surface: string,
): NodeEndpointView {
  return {
    surface,
    url: ep.url,
    health: ep.health,
    chain_id: ep.chainId ?? null,
    lowest_height: ep.lowest ?? null,
    highest_height: ep.highest ?? null,
    lag_blocks: lagBehind(endpoints, ep),
    requests: ep.requests,
    ...(ep.error !== undefined && ep.health !== 'healthy' ? { error: ep.error } : {}),
  };
}

function openEndpoint(url: string, connections: number, health: EndpointStatus['health']): PoolEndpoint {
  const u = new URL(url);
  return {
    url: redactUrl(url),
    basePath: u.pathname.replace(/\/+$/, ''),
    pool: new Pool(u.origin, { connections, pipelining: 1, keepAliveTimeout: 30_000 }),
    health,
    consecutiveFailures: 0,
    downUntil: 0,
    lastProbeAt: 0,
    probing: undefined,
    requests: 0,
    refusalStreak: 0,
  };
}

/**
 * What a refusal teaches: the endpoint holds nothing below `refusal.lowest`. When the node did not
 * name its lowest height, heights a little further up are likely gone too: the guess `avoidBelow`
 * doubles its step (in spans of the refused request's width) with each refusal in a row, at most
 * half the way to its head, so a long pruned stretch costs a few refused requests, not one per
 * batch. The guess only steers (routing prefers other endpoints below it); `lowest`, what the
 * endpoint said, decides what it cannot serve.
 */
function learnRefusal(ep: PoolEndpoint, refusal: Refusal, width: number): void {
  ep.lowest = Math.max(ep.lowest ?? 1, refusal.lowest);
  if (refusal.exact) {
    ep.avoidBelow = ep.lowest;
    ep.refusalStreak = 0;
    return;
  }
  // Never more than half the way to its head (when known): a guess past its true lowest only
  // leaves it idle below the guess, so it approaches the head by halves.
  const room = ep.highest === undefined ? Infinity : Math.max(0, Math.floor((ep.highest - ep.lowest) / 2));
  const guess = ep.lowest + Math.min((2 ** ep.refusalStreak - 1) * width, room);
  ep.refusalStreak = Math.min(ep.refusalStreak + 1, 30);
  ep.avoidBelow = Math.max(ep.avoidBelow ?? 0, guess);
}

async function runProbe(ep: PoolEndpoint, options: EndpointPoolOptions): Promise<void> {
  if (!options.probe) return;
  const timeoutMs = options.timeoutMs;
  const send: ProbeSend = async (req) => {
    // The signal bounds the whole probe (connect included), not only the wait for headers.
    const res = await ep.pool.request({
      method: req.method,
      path: ep.basePath + req.path || '/',
      headers: { 'content-type': 'application/json' },
      ...(req.body === undefined ? {} : { body: req.body }),
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      signal: AbortSignal.timeout(timeoutMs),
    });
    return { status: res.statusCode, text: await res.body.text() };
  };
  try {
    const identity = await options.probe(send);
    ep.chainId = identity.chainId;
    // REST says nothing of its lowest height: what its answers taught the pool is kept.
    ep.lowest = identity.lowest ?? ep.lowest;
    ep.highest = identity.highest;
    ep.consecutiveFailures = 0;
    if (ep.health !== 'wrong_chain') ep.health = 'healthy';
  } catch (err) {
    // Out for serving another chain: that stays its reason until a probe says otherwise.
    if (ep.health === 'wrong_chain') return;
    ep.error = isTimeout(err) ? `no answer to its probe within ${timeoutMs} ms` : (err as Error).message;
    // Never answered yet: still unknown (not asked, waited for); else it went down.
    if (ep.health !== 'unprobed') ep.health = 'down';
  }
}

/**
 * A first probe, waited for at most `waitMs`: past it the endpoint stays `unprobed` (unknown, not
 * asked), start-up goes on, and the probe keeps going (its answer judges the endpoint then).
 */
function boundedWait(
  probing: Promise<void>,
  ep: PoolEndpoint,
  waitMs: number,
  options: EndpointPoolOptions,
): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      if (ep.health === 'unprobed') {
        ep.error = `no answer to its probe within ${waitMs} ms`;
        options.logger?.warn({ surface: options.name, endpoint: ep.url }, `${ep.error}: going on without it`);
      }
      resolve();
    }, waitMs);
  });
  return Promise.race([probing, waited]).finally(() => clearTimeout(timer));
}

/** The probe's own bound ran out (its signal, or undici's wait for headers or body). */
function isTimeout(err: unknown): boolean {
  return (
    (err as Error).name === 'TimeoutError' ||
    err instanceof undiciErrors.RequestAbortedError ||
    err instanceof undiciErrors.HeadersTimeoutError ||
    err instanceof undiciErrors.BodyTimeoutError
  );
}

function majorityChain(endpoints: readonly PoolEndpoint[]): string | undefined {
  const votes = new Map<string, number>();
  for (const ep of endpoints)
    if (ep.chainId !== undefined) votes.set(ep.chainId, (votes.get(ep.chainId) ?? 0) + 1);
  let best: string | undefined;
  for (const [chainId, n] of votes) if (best === undefined || n > votes.get(best)!) best = chainId;
  return best;
}

function soonestBack(endpoints: readonly PoolEndpoint[], holders: number[]): PoolEndpoint {
  return holders.map((i) => endpoints[i]!).reduce((a, b) => (a.downUntil <= b.downUntil ? a : b));
}

function waitError(
  name: string,
  endpoints: readonly PoolEndpoint[],
  holders: number[],
  span: HeightSpan | undefined,
): AppError {
  const missing = holders.map((i) => endpoints[i]!.url).join(', ');
  const what = span ? spanText(span) : 'any request';
  return new AppError(
    span ? 'height_holder_unreachable' : 'node_unreachable',
    `${name}: no reachable endpoint serves ${what}; waiting for ${missing} (${describeEndpoints(endpoints)})`,
    // The surface rides along, as on a failed request, so a part waiting here says which (docs/api.md §4.1.1).
    { retryable: true, details: { heights: span ?? null, waitingFor: missing, surface: name } },
  );
}

function notHeldError(
  name: string,
  endpoints: readonly PoolEndpoint[],
  span: HeightSpan | undefined,
  expected: string | undefined,
): AppError {
  if (!span) {
    return new AppError(
      'chain_mismatch',
      `${name}: every endpoint serves another chain than ${expected ?? '?'} (${describeEndpoints(endpoints)})`,
    );
  }
  const lowest = lowestHeld(endpoints);
  return new AppError(
    'height_not_held',
    `${name}: ${spanText(span)} is held by no endpoint (${describeEndpoints(endpoints)}); ` +
      `add an archive endpoint that holds it` +
      (lowest !== undefined ? `, or index from ${lowest} on a fresh database (START_HEIGHT=${lowest})` : ''),
    { details: { heights: span } },
  );
}
