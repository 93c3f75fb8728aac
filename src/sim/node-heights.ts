import { InputError } from '../shared/errors.js';
import type { Replay } from './replay/load.js';
import type { SimulatorOptions } from './types.js';

/**
 * The heights one simulated node serves (docs/node-data.md §5.3): its head (fixed, live, or lagging
 * the chain's) and its lowest height (an archive, a state-synced or a pruned node).
 */

const DEFAULT_HEAD = 1000;

/** The head the simulator serves: fixed, or growing one block per block time when live. */
export function simulatorHead(
  options: SimulatorOptions,
  blockTimeMs: number,
  replay: Replay | undefined,
): () => number {
  const startHead = replay ? replay.count : (options.head ?? DEFAULT_HEAD);
  if (!Number.isSafeInteger(startHead) || startHead < 1)
    throw new InputError('invalid_head', '--head must be ≥ 1');
  const startedAt = Date.now();
  const lag = nonNegative(options.lagBlocks, '--lag-blocks');
  const chainHead = (): number =>
    options.live && !replay ? startHead + Math.floor((Date.now() - startedAt) / blockTimeMs) : startHead;
  return lag === 0 ? chainHead : () => Math.max(1, chainHead() - lag);
}

/**
 * A chain halt (docs/node-data.md §5.3): while held at a height, the node serves no block above it,
 * as a rollup whose sequencer stopped; released, its head is the chain's again.
 */
export function haltableHead(chainHead: () => number): {
  head: () => number;
  halt(at: number | undefined): void;
} {
  let heldAt: number | undefined;
  return {
    head: () => (heldAt === undefined ? chainHead() : Math.min(chainHead(), heldAt)),
    halt(at) {
      if (at !== undefined && (!Number.isSafeInteger(at) || at < 1))
        throw new InputError('invalid_height', `a halt height must be ≥ 1, not ${at}`);
      heldAt = at;
    },
  };
}

/**
 * The lowest height the node serves (docs/node-data.md §5.3): an archive's 1, a state-synced or
 * pruned node's fixed lowest, or the first of the last N blocks it keeps; never above the head.
 */
export function servedBase(options: SimulatorOptions, prunedFault: number, head: () => number): () => number {
  const fixed = Math.max(prunedFault, nonNegative(options.lowestHeight, '--lowest-height'), 1);
  const keep = nonNegative(options.keepBlocks, '--keep-blocks');
  return () => Math.min(Math.max(fixed, keep > 0 ? head() - keep + 1 : 1), head());
}

function nonNegative(value: number | undefined, flag: string): number {
  if (value === undefined) return 0;
  if (!Number.isSafeInteger(value) || value < 0)
    throw new InputError('invalid_option', `${flag} must be a non-negative integer`);
  return value;
}
