import { InputError } from '../../shared/errors.js';
import { hash32 } from '../chain/prng.js';
import type { FaultCounts, FaultLog } from '../types.js';
import type { RawResponse } from './http.js';

/** Parsed --faults spec; rates are probabilities per request, latency in ms. */
export interface FaultSpec {
  error5xx: number;
  error429: number;
  timeout: number;
  reset: number;
  latencyMs: number;
  /** block_results lags /block by this many heights. */
  lag: number;
  shortPage: number;
  /** Lowest available height (pruned below). */
  pruned: number;
}

const KEYS: Record<string, keyof FaultSpec> = {
  '5xx': 'error5xx',
  '429': 'error429',
  timeout: 'timeout',
  reset: 'reset',
  latency: 'latencyMs',
  lag: 'lag',
  shortpage: 'shortPage',
  pruned: 'pruned',
};

export const NO_FAULTS: FaultSpec = {
  error5xx: 0,
  error429: 0,
  timeout: 0,
  reset: 0,
  latencyMs: 0,
  lag: 0,
  shortPage: 0,
  pruned: 1,
};

export function parseFaults(spec: string | undefined): FaultSpec {
  const out: FaultSpec = { ...NO_FAULTS };
  if (spec === undefined || spec.trim() === '') return out;
  for (const part of spec.split(',')) {
    const [name, value] = part.split('=').map((s) => s.trim());
    const key = KEYS[name ?? ''];
    const n = Number(value);
    if (!key || value === undefined || value === '' || !Number.isFinite(n) || n < 0) {
      throw new InputError(
        'invalid_faults',
        `--faults: cannot read "${part}" (known: ${Object.keys(KEYS).join(', ')})`,
      );
    }
    const isRate = ['error5xx', 'error429', 'timeout', 'reset', 'shortPage'].includes(key);
    if (isRate && n > 1)
      throw new InputError('invalid_faults', `--faults: ${name} is a rate between 0 and 1`);
    out[key] = isRate ? n : Math.floor(n);
  }
  if (out.pruned < 1) out.pruned = 1;
  return out;
}

export type Surface = 'rpc' | 'rest' | 'jsonrpc';

/** How RPC (and the REST block routes) and REST state routes refuse a height below the lowest. */
const REFUSALS = ['is not available, lowest height is', 'Version has either been pruned'];

/**
 * Draws faults per request from a counter-driven hash, so a run with the same request order
 * sees the same faults. Every fault it serves is counted in `log()`, so a test can tell that a
 * profile's faults really reached the client (a rate too low for the run's requests draws none).
 */
export function createFaultInjector(spec: FaultSpec, seed: number) {
  let counter = 0;
  /** While set, every request of every surface gets this fault: the node is down. */
  let outage: keyof FaultCounts | undefined;
  const draw = (stream: number): number => hash32(seed, 900 + stream, counter) / 0x100000000;
  const zero = (): FaultCounts => ({ reset: 0, timeout: 0, '429': 0, '5xx': 0 });
  const log: FaultLog = {
    rpc: zero(),
    rest: zero(),
    jsonrpc: zero(),
    shortPages: 0,
    laggedResults: 0,
    delayed: 0,
    served: { rpc: 0, rest: 0, jsonrpc: 0 },
    unavailable: 0,
    refused: { rpc: 0, rest: 0, jsonrpc: 0 },
  };
  const drawKind = (): keyof FaultCounts | undefined => {
    if (draw(1) < spec.reset) return 'reset';
    if (draw(2) < spec.timeout) return 'timeout';
    if (draw(3) < spec.error429) return '429';
    if (draw(4) < spec.error5xx) return '5xx';
    return undefined;
  };
  return {
    spec,
    /** A fault answer replacing the real one, or undefined. */
    next(surface: Surface): RawResponse | undefined {
      counter++;
      const kind = outage ?? drawKind();
      if (kind === undefined) return undefined;
      log[surface][kind]++;
      return faultAnswer(kind, surface);
    },
    /**
     * Counts an answer a surface served, and whether it refused a height below the lowest
     * (CometBFT's and the SDK's words; JSON-RPC counts each refused call itself).
     */
    served(surface: Surface, body: string | Buffer): void {
      log.served[surface]++;
      if (surface !== 'jsonrpc' && REFUSALS.some((words) => body.includes(words))) {
        log.unavailable++;
        log.refused[surface]++;
      }
    },
    /** A JSON-RPC call refused for a height below the lowest (a null block, pruned state). */
    refusedBelowLowest(): void {
      log.unavailable++;
      log.refused.jsonrpc++;
    },
    /** Whether this answer is delayed by the latency setting (counted when it is). */
    delays(): boolean {
      if (spec.latencyMs > 0) log.delayed++;
      return spec.latencyMs > 0;
    },
    shortPage(): boolean {
      counter++;
      const short = draw(5) < spec.shortPage;
      if (short) log.shortPages++;
      return short;
    },
    /** block_results of `height` is not there yet: results lag /block by `lag` heights. */
    resultsMissing(height: number, head: number): boolean {
      const missing = height > head - spec.lag;
      if (missing) log.laggedResults++;
      return missing;
    },
    /** Takes the node down (every answer replaced by `kind`) until called without one. */
    setOutage(kind: keyof FaultCounts | undefined): void {
      outage = kind;
    },
    /** A copy of the counts so far. */
    log(): FaultLog {
      return structuredClone(log);
    },
  };
}

export type FaultInjector = ReturnType<typeof createFaultInjector>;

function faultAnswer(kind: keyof FaultCounts, surface: Surface): RawResponse {
  if (kind === 'reset') return { status: 0, body: '', reset: true };
  if (kind === 'timeout') return { status: 0, body: '', hang: true };
  if (kind === '429') return { status: 429, body: 'Too Many Requests\n' };
  if (surface === 'rest')
    return { status: 503, body: '{"code":14,"message":"service unavailable","details":[]}' };
  return { status: 503, body: '<html><body><h1>503 Service Unavailable</h1></body></html>\n' };
}
