import type { monitorEventLoopDelay } from 'node:perf_hooks';

/** A window's event-loop delay, ms (what a timer or an I/O callback waited beyond its due time). */
export interface LoopDelay {
  p50: number;
  p99: number;
  max: number;
}

/** The sampling interval the benches enable the histogram with, ms. */
export const LOOP_RESOLUTION_MS = 10;

/**
 * The histogram's figures in ms (it records ns), then a fresh start for the next window. Each
 * sample is a whole interval (the resolution plus the delay), so the resolution is taken off.
 */
export function readLoopDelay(h: ReturnType<typeof monitorEventLoopDelay>): LoopDelay {
  const ms = (ns: number) => Math.max(0, Math.round(ns / 1e4) / 100 - LOOP_RESOLUTION_MS);
  const out = { p50: ms(h.percentile(50)), p99: ms(h.percentile(99)), max: ms(h.max) };
  h.reset();
  return out;
}
