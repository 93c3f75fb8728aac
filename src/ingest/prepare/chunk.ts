import { AppError, isRetryable } from '../../shared/errors.js';
import type { CometClient } from '../../node/cometbft.js';
import type { EvmClient, EvmReceipt } from '../../node/evm.js';
import type { RestClient } from '../../node/rest.js';
import type { RawBlock } from '../../node/types.js';
import type { Logger } from '../../shared/logger.js';
import type { TxDecoder } from '../decode/decoded-tx.js';
import type { NftCollector } from '../collect/nft-collector.js';
import { ChunkFailedAt, type ChunkFetcher } from '../fetch/window.js';
import { createAccountBytesMemo, prepareBlock, type PreparedBlock } from './block.js';
import { threadTurns } from './turns.js';

/** Fetches and prepares chunks of heights for the pipeline, in this thread or in workers. */
export interface ChunkPreparer {
  prepare: ChunkFetcher<PreparedBlock>;
  /** Stops what the preparer runs (its workers); chunks still pending are rejected. */
  close(): Promise<void>;
}

export interface ChunkPrepareDeps {
  comet: CometClient;
  rest: RestClient;
  evm: EvmClient | undefined;
  decoder: TxDecoder;
  accountPrefix: string;
  /** The VM's NFT collector; absent when NFT indexing is off. */
  nft?: NftCollector | undefined;
  /** Told of txs stored undecoded. */
  logger?: Logger;
  /** The chain indexed: a block whose header names another is refused (docs/chains.md §5). */
  chainId?: string;
}

/**
 * `/block` + `/block_results` (+ EVM receipts) of a chunk, each block prepared into rows. The
 * memos (proposer monikers, account bytes) live as long as the preparer, in the thread using them.
 */
export function createChunkPreparer(deps: ChunkPrepareDeps): ChunkPreparer {
  const turns = threadTurns();
  const leaveTurns = turns.join();
  const prepareCtx = {
    decoder: deps.decoder,
    rest: deps.rest,
    accountPrefix: deps.accountPrefix,
    monikers: new Map<string, string | undefined>(),
    accountBytes: createAccountBytesMemo(deps.accountPrefix),
    ...(deps.nft ? { nft: deps.nft } : {}),
    ...(deps.logger ? { logger: deps.logger } : {}),
  };
  return {
    async prepare(heights) {
      const [blocks, fetched] = await Promise.all([
        deps.comet.fetchBlocks(heights),
        deps.evm ? deps.evm.receiptsOf(heights) : undefined,
      ]);
      refuseForeignBlocks(blocks, deps.chainId);
      const receipts = deps.evm && fetched && (await receiptsOfEvmBlocks(deps.evm, heights, blocks, fetched));
      const settled = await Promise.allSettled(
        blocks.map((raw, i) => {
          const r = receipts?.[i];
          if (raw === undefined || (deps.evm && r === undefined)) return undefined;
          return turns.take(heights.length, () => prepareBlock(raw, r, prepareCtx));
        }),
      );
      return itemsUntilFailure(heights, settled);
    },
    close: async () => leaveTurns(),
  };
}

/**
 * minievm whose EVM indexer pruned a block answers its receipts with `[]`, as for a block without
 * EVM txs (docs/node-data.md §5.2): where the block's Cosmos txs emitted EVM logs (each such tx has
 * a receipt), `[]` is asked again saying so, and the pool takes it as that endpoint's refusal.
 */
async function receiptsOfEvmBlocks(
  evm: EvmClient,
  heights: readonly number[],
  blocks: readonly (RawBlock | undefined)[],
  receipts: (EvmReceipt[] | undefined)[],
): Promise<(EvmReceipt[] | undefined)[]> {
  const again = heights.filter((_, i) => receipts[i]?.length === 0 && holdsEvmTxs(blocks[i]));
  if (again.length === 0) return receipts;
  const refetched = await evm.receiptsOf(
    again,
    again.map(() => true),
  );
  return receipts.map((r, i) => {
    const j = again.indexOf(heights[i]!);
    return j < 0 ? r : refetched[j];
  });
}

/** A block one of whose txs emitted EVM logs (minievm's `evm` event, docs/node-data.md §1.5). */
function holdsEvmTxs(block: RawBlock | undefined): boolean {
  return (
    block?.txResults.some((r) =>
      r.events.some((e) => e.type === 'evm' && e.attributes.some((a) => a.key === 'log')),
    ) ?? false
  );
}

/**
 * A node swapped for another chain's between two probes of its endpoint (docs/node-data.md §5)
 * answers blocks of that chain: the chunk is refused whole and retried, until the probe takes the
 * endpoint out of the pool.
 */
function refuseForeignBlocks(blocks: readonly (RawBlock | undefined)[], chainId: string | undefined): void {
  if (chainId === undefined) return;
  const foreign = blocks.find((b) => b !== undefined && b.chainId !== chainId);
  if (foreign)
    throw new AppError(
      'block_of_another_chain',
      `height ${foreign.height}: the node answered a block of chain ${foreign.chainId}, not ${chainId}`,
      { retryable: true },
    );
}

/**
 * A chunk's prepared blocks; a failure surfaces at the lowest failing height (not whichever block
 * failed first in time): a retryable one retries the chunk, a fatal one keeps the blocks before it.
 */
function itemsUntilFailure<T>(heights: readonly number[], settled: PromiseSettledResult<T>[]): T[] {
  const i = settled.findIndex((s) => s.status === 'rejected');
  if (i < 0) return settled.map((s) => (s as PromiseFulfilledResult<T>).value);
  const reason = (settled[i] as PromiseRejectedResult).reason as unknown;
  if (isRetryable(reason)) throw reason;
  const before = settled.slice(0, i).map((s) => (s as PromiseFulfilledResult<T>).value);
  throw new ChunkFailedAt(heights[i]!, before, reason);
}
