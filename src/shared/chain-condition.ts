import type { VmType } from './config.js';
import type { NodeWaits } from './node-waits.js';

/** How one chain of a deployment is doing (docs/chains.md §2.1), kept by its ingest run. */
export type ChainState = 'starting' | 'ok' | 'catching_up' | 'stalled';

export interface ChainCondition {
  chainId: string;
  /** Known once the database or the node told it (or the chains file stated it). */
  vm: VmType | undefined;
  state: ChainState;
  /** Last committed height (0 before the first). */
  height: number;
  /** The node's head as last seen; undefined before the node first answered. */
  nodeHeight: number | undefined;
  /** Why the chain is stalled, and since when (kept until the chain commits again). */
  lastError: { message: string; since: Date } | undefined;
}

/** Blocks behind the node's head up to which a chain counts as caught up (as `/ready`). */
export const CAUGHT_UP_BLOCKS = 10;

/**
 * A chain's condition from what its run knows: stalled while its last attempt failed or something
 * waits for its node; catching up while far behind the node; else ok.
 */
export function conditionOf(run: {
  chainId: string;
  vm: VmType | undefined;
  started: boolean;
  height: number;
  nodeHeight: number | undefined;
  failure: { message: string; since: Date } | undefined;
  waits: NodeWaits;
}): ChainCondition {
  const waiting = run.waits.list()[0];
  const lastError =
    run.failure ??
    (waiting ? { message: `${waiting.what}: ${waiting.lastError}`, since: waiting.since } : undefined);
  const behind = run.nodeHeight === undefined || run.nodeHeight - run.height > CAUGHT_UP_BLOCKS;
  const state: ChainState = lastError
    ? 'stalled'
    : !run.started
      ? 'starting'
      : behind || run.height === 0
        ? 'catching_up'
        : 'ok';
  return {
    chainId: run.chainId,
    vm: run.vm,
    state,
    height: run.height,
    nodeHeight: run.nodeHeight,
    lastError,
  };
}
