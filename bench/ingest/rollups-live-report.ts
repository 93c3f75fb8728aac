/**
 * The report of `bench:rollups --phase live` (bench/ingest/rollups-live.ts): each window, each
 * sick window against the healthy windows on either side, consecutive healthy windows against
 * each other (the noise floor), and per fault the ratios over every pair and over all windows.
 * "Others" are every chain but chain 0 (the sick one).
 */
import type { LoopDelay } from '../lib/loop-delay.js';
import { percentile } from '../lib/harness.js';

export interface Window {
  /** A catch-up window lasts from the node's return until the sick chain is back at its head. */
  kind: 'healthy' | 'slow' | 'down' | 'slow catch-up' | 'down catch-up';
  /** Epoch ms, to line the window up with samples taken outside the bench. */
  startedAt: number;
  seconds: number;
  /** Commits (one per batch of blocks) per second and their mean duration, from `start`'s /metrics. */
  commits: Record<'sick' | 'others', { perSec: number; meanMs: number }>;
  /** Each chain's block lags in the window, ms (chain 0 first). */
  lags: number[][];
  chains: Array<{ chainId: string; blocksPerSec: number; lagP50Ms: number; lagP99Ms: number }>;
  sickNode: { requestsPerSec: number; failedPerSec: number; startLogLinesPerSec: number };
  othersStartLogLinesPerSec: number;
  cores: Record<'start' | 'sickNode' | 'healthyNodes' | 'bench', number>;
  loopDelayMs: Record<'start' | 'sickNode' | 'healthyNodes' | 'bench', LoopDelay>;
  /** The host's CPU over the window (every process on it: nodes, PostgreSQL, `start`, this bench). */
  host: { meanBusy: number; saturatedShare: number };
  load1: number;
}

interface Others {
  /** p50/p99 of every block of the other chains together. */
  pooledLagP50Ms: number;
  pooledLagP99Ms: number;
  /** The mean of each other chain's own p99 (the "per-chain head lag p99"). */
  meanChainLagP99Ms: number;
  meanBlocksPerSec: number;
}

const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);

function others(w: Window): Others {
  const pool = sorted(w.lags.slice(1).flat());
  const rest = w.chains.slice(1);
  return {
    pooledLagP50Ms: Math.round(percentile(pool, 50)),
    pooledLagP99Ms: Math.round(percentile(pool, 99)),
    // A short window (a catch-up of a second) may hold no block of some chain.
    meanChainLagP99Ms: Math.round(mean(rest.map((c) => c.lagP99Ms).filter(Number.isFinite))),
    meanBlocksPerSec: round(mean(rest.map((c) => c.blocksPerSec))),
  };
}

/** `w`'s others against the mean of `base`'s. */
function ratios(w: Others, base: Others[]) {
  const b = (key: keyof Others) => mean(base.map((x) => x[key]));
  return {
    pooledLagP99Ratio: round(w.pooledLagP99Ms / b('pooledLagP99Ms')),
    pooledLagP50Ratio: round(w.pooledLagP50Ms / b('pooledLagP50Ms')),
    meanChainLagP99Ratio: round(w.meanChainLagP99Ms / b('meanChainLagP99Ms')),
    throughputRatio: round(w.meanBlocksPerSec / b('meanBlocksPerSec')),
  };
}

export function summarize(
  windows: Window[],
  o: {
    mix: string[];
    blockTimeMs: number;
    txsPerBlock: string;
    seconds: number;
    slowMs: number;
    rounds: number;
    sickChain: string;
  },
) {
  const counts = new Map<string, number>();
  const labels = windows.map((w) => {
    counts.set(w.kind, (counts.get(w.kind) ?? 0) + 1);
    return `${w.kind} #${counts.get(w.kind)}`;
  });
  const figures = windows.map(others);
  const pairs = windows.flatMap((w, i) => {
    if (w.kind === 'healthy') return [];
    // The nearest healthy window on either side (a catch-up window may stand between).
    const before = windows
      .slice(0, i)
      .map((x) => x.kind)
      .lastIndexOf('healthy');
    const after = windows.findIndex((x, j) => j > i && x.kind === 'healthy');
    const around = [before, after].filter((j) => j >= 0);
    return [
      {
        window: labels[i]!,
        against: around.map((j) => labels[j]!),
        ...ratios(
          figures[i]!,
          around.map((j) => figures[j]!),
        ),
      },
    ];
  });
  const healthy = windows.flatMap((w, i) => (w.kind === 'healthy' ? [i] : []));
  const healthyNoise = healthy.slice(1).map((i, k) => ({
    window: labels[i]!,
    against: [labels[healthy[k]!]!],
    ...ratios(figures[i]!, [figures[healthy[k]!]!]),
  }));
  const allOf = (kind: Window['kind']) => {
    const ws = windows.filter((w) => w.kind === kind);
    const pool = sorted(ws.flatMap((w) => w.lags.slice(1).flat()));
    return {
      p50: percentile(pool, 50),
      p99: percentile(pool, 99),
      bps: mean(ws.map((w) => others(w).meanBlocksPerSec)),
    };
  };
  const overall = (kind: Exclude<Window['kind'], 'healthy'>) => {
    const [k, h] = [allOf(kind), allOf('healthy')];
    const ps = pairs.filter((p) => p.window.startsWith(`${kind} #`));
    const range = (key: 'pooledLagP99Ratio' | 'throughputRatio') => [
      Math.min(...ps.map((p) => p[key])),
      Math.max(...ps.map((p) => p[key])),
    ];
    return {
      allWindowsPooledLagP99Ratio: round(k.p99 / h.p99),
      allWindowsPooledLagP50Ratio: round(k.p50 / h.p50),
      allWindowsThroughputRatio: round(k.bps / h.bps),
      pairsPooledLagP99Ratio: range('pooledLagP99Ratio'),
      pairsThroughputRatio: range('throughputRatio'),
    };
  };
  return {
    bench: 'rollups-live',
    chains: o.mix.join(','),
    sickChain: o.sickChain,
    blockTimeMs: o.blockTimeMs,
    txsPerBlock: o.txsPerBlock,
    secondsPerWindow: o.seconds,
    slowMs: o.slowMs,
    rounds: o.rounds,
    windows: windows.map(({ lags: _lags, chains, ...w }, i) => ({
      label: labels[i],
      ...w,
      others: figures[i],
      sickChain: chains[0],
      chains: chains.slice(1),
    })),
    pairs,
    healthyNoise,
    summary: {
      slow: overall('slow'),
      down: overall('down'),
      'slow catch-up': overall('slow catch-up'),
      'down catch-up': overall('down catch-up'),
    },
  };
}
