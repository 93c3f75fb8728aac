import { createNftLookups, NFT_LOOKUP_ATTEMPTS, type NftLookups } from '../../node/nft-lookups.js';
import type { RestClient } from '../../node/rest.js';
import { INGEST_RETRY, type RetryPolicy } from '../../node/retry.js';
import type { RawBlock } from '../../node/types.js';
import type { Logger } from '../../shared/logger.js';
import type { NftBlockRows } from '../../store/writers/nft-rows.js';
import { collectEvmNfts } from './nft-evm.js';
import { collectMoveNfts } from './nft-move.js';
import { collectWasmNfts } from './nft-wasm.js';

/** The NFT collector of the chain's VM (exactly one per chain, docs/ingest.md §7.0). */
export type NftCollector = (raw: RawBlock) => Promise<NftBlockRows>;

export function createNftCollector(ctx: {
  vm: 'move' | 'wasm' | 'evm';
  prefix: string;
  lookups: NftLookups;
  /** Told of events skipped as unreadable chain data. */
  logger?: Logger;
}): NftCollector {
  const collect = { move: collectMoveNfts, wasm: collectWasmNfts, evm: collectEvmNfts }[ctx.vm];
  const { prefix, lookups, logger } = ctx;
  return (raw) => collect(raw, { prefix, lookups, ...(logger ? { logger } : {}) });
}

/**
 * The collector ingest runs: its look-ups through the node's REST, retried with ingest's policy
 * (`lookupAttempts` per look-up when set). The main thread and each prepare worker build theirs here.
 */
export function createIngestNftCollector(ctx: {
  vm: 'move' | 'wasm' | 'evm';
  prefix: string;
  rest: RestClient;
  logger: Logger;
  signal: AbortSignal;
  lookupAttempts?: number | undefined;
  /** Backoff between attempts (default INGEST_RETRY; tests shrink it). */
  retry?: RetryPolicy | undefined;
}): NftCollector {
  const { rest, logger, signal, lookupAttempts } = ctx;
  const policy = { ...(ctx.retry ?? INGEST_RETRY), maxAttempts: lookupAttempts ?? NFT_LOOKUP_ATTEMPTS };
  return createNftCollector({
    vm: ctx.vm,
    prefix: ctx.prefix,
    logger,
    lookups: createNftLookups({ rest, logger, signal, policy }),
  });
}
