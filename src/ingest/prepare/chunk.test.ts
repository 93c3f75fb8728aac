import { describe, expect, it } from 'vitest';
import type { CometClient } from '../../node/cometbft.js';
import type { RawBlock } from '../../node/types.js';
import { createChunkPreparer, type ChunkPrepareDeps } from './chunk.js';

const block = (height: number, chainId: string): RawBlock => ({
  height,
  chainId,
  hash: 'AB'.repeat(32),
  time: '2026-01-01T00:00:00Z',
  proposerAddress: 'CD'.repeat(20),
  txs: [],
  txResults: [],
  finalizeBlockEvents: [],
});

describe('createChunkPreparer', () => {
  it('refuses a chunk holding a block of another chain, retryably, naming both chains', async () => {
    const comet = {
      fetchBlocks: async (heights: number[]) => heights.map((h) => block(h, h === 8 ? 'other-1' : 'mine-1')),
    };
    const preparer = createChunkPreparer({
      chainId: 'mine-1',
      comet: comet as unknown as CometClient,
    } as ChunkPrepareDeps);
    const refused = await preparer.prepare([7, 8, 9]).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(refused).toMatchObject({
      code: 'block_of_another_chain',
      retryable: true,
      message: 'height 8: the node answered a block of chain other-1, not mine-1',
    });
  });
});
