import { describe, expect, it } from 'vitest';
import type { CometClient } from '../../node/cometbft.js';
import type { RawBlock } from '../../node/types.js';
import type { RestClient } from '../../node/rest.js';
import type { TxDecoder } from '../decode/decoded-tx.js';
import { createChunkPreparer, type ChunkPrepareDeps } from './chunk.js';
import { TURN_MS } from './turns.js';

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
    await preparer.close();
    expect(refused).toMatchObject({
      code: 'block_of_another_chain',
      retryable: true,
      message: 'height 8: the node answered a block of chain other-1, not mine-1',
    });
  });

  it("prepares in its thread's turns: another chain's one-block chunk asked during a chunk of 20 is prepared before that chunk ends", async () => {
    const done: string[] = [];
    let askHead = () => undefined as unknown;
    const preparerOf = (chainId: string) =>
      createChunkPreparer({
        chainId,
        comet: {
          fetchBlocks: async (hs: number[]) => hs.map((h) => block(h, chainId)),
        } as unknown as CometClient,
        rest: { validatorMoniker: async () => undefined } as unknown as RestClient,
        evm: undefined,
        accountPrefix: 'init',
        // Each block takes a whole turn's time (its fees summed last of its rows).
        decoder: {
          sumFees: () => {
            askHead();
            const until = performance.now() + TURN_MS;
            while (performance.now() < until);
            return [];
          },
        } as unknown as TxDecoder,
      });
    const [bulk, head] = [preparerOf('bulk-1'), preparerOf('head-1')];
    const headDone = new Promise<void>((resolve) => {
      askHead = () => {
        askHead = () => undefined;
        void head.prepare([7]).then(() => (done.push('head'), resolve()));
      };
    });
    const heights = Array.from({ length: 20 }, (_, i) => i + 1);
    await Promise.all([bulk.prepare(heights).then(() => done.push('bulk')), headDone]);
    await Promise.all([bulk.close(), head.close()]);
    expect(done).toEqual(['head', 'bulk']);
  });
});
