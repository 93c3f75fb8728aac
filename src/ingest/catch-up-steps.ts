import { CAUGHT_UP_BLOCKS } from '../shared/chain-condition.js';

/**
 * How many heights a deployment's chain takes per step (one chunk fetched and prepared, one commit)
 * while it catches up beside chains at their heads (docs/chains.md §9). Every chain's steps run on
 * one main thread: a chain far behind, committing dozens of blocks at a time, holds that thread for
 * as long each time, and the blocks of the chains at their heads wait behind it. So a chain that
 * was at its head and fell more than CAUGHT_UP_BLOCKS behind its node (its node down or slow, its
 * backlog landing at once) takes steps of `catchUpStep` heights while any other chain is within
 * CAUGHT_UP_BLOCKS of its own node; otherwise (a chain alone, all behind, or a chain catching up
 * from where its ingest started: a backfill keeps its full commits) steps are unbounded. A
 * catching-up chain never waits for the others: it always has its steps in flight, only shorter
 * ones, so it still gets its turns and finishes.
 */
export interface CatchUpSteps {
  /** A chain's pipeline starts: its handle, until it leaves. */
  join(): CatchUpChain;
}

export interface CatchUpChain {
  /**
   * Tells how many blocks the chain is behind its node now; answers the most heights it may take
   * in its next step (Infinity: no bound).
   */
  heightsPerStep(behind: number): number;
  /** The chain's pipeline stopped: it no longer counts as at its head or behind. */
  leave(): void;
}

/** Heights per step of a chain catching up beside chains at their heads. */
export const CATCH_UP_STEP_HEIGHTS = 4;

export function createCatchUpSteps(catchUpStep = CATCH_UP_STEP_HEIGHTS): CatchUpSteps {
  /** Each joined chain's last reported distance to its node; undefined until it reports. */
  const behindOf = new Map<symbol, number | undefined>();
  const atHead = (behind: number | undefined) => behind !== undefined && behind <= CAUGHT_UP_BLOCKS;
  const anotherAtHead = (self: symbol) =>
    [...behindOf].some(([chain, behind]) => chain !== self && atHead(behind));

  return {
    join() {
      const self = Symbol('chain');
      behindOf.set(self, undefined);
      let reachedHead = false;
      return {
        heightsPerStep(behind) {
          behindOf.set(self, behind);
          if (atHead(behind)) reachedHead = true;
          return reachedHead && !atHead(behind) && anotherAtHead(self)
            ? catchUpStep
            : Number.POSITIVE_INFINITY;
        },
        leave: () => behindOf.delete(self),
      };
    },
  };
}
