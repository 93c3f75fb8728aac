import { InputError } from '../../shared/errors.js';
import { hash32 } from '../chain/prng.js';
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

/**
 * Draws faults per request from a counter-driven hash, so a run with the same request order
 * sees the same faults.
 */
export function createFaultInjector(spec: FaultSpec, seed: number) {
  let counter = 0;
  const draw = (stream: number): number => hash32(seed, 900 + stream, counter) / 0x100000000;
  return {
    spec,
    /** A fault answer replacing the real one, or undefined. */
    next(surface: Surface): RawResponse | undefined {
      counter++;
      if (draw(1) < spec.reset) return { status: 0, body: '', reset: true };
      if (draw(2) < spec.timeout) return { status: 0, body: '', hang: true };
      if (draw(3) < spec.error429) return { status: 429, body: 'Too Many Requests\n' };
      if (draw(4) < spec.error5xx) {
        if (surface === 'rest')
          return { status: 503, body: '{"code":14,"message":"service unavailable","details":[]}' };
        return { status: 503, body: '<html><body><h1>503 Service Unavailable</h1></body></html>\n' };
      }
      return undefined;
    },
    shortPage(): boolean {
      counter++;
      return draw(5) < spec.shortPage;
    },
  };
}

export type FaultInjector = ReturnType<typeof createFaultInjector>;
