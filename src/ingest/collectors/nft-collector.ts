import type { NftLookups } from '../../node/nft-lookups.js';
import type { RawBlock } from '../../node/types.js';
import type { Logger } from '../../shared/logger.js';
import type { NftBlockRows } from '../../store/writers/nft-rows.js';
import { collectEvmNfts } from './nft-evm.js';
import { collectMoveNfts } from './nft-move.js';
import { collectWasmNfts } from './nft-wasm.js';

/** The NFT collector of the chain's VM (exactly one per chain, §7.0). */
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
