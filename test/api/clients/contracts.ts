import { afterAll, beforeAll, describe } from 'vitest';
import type { VmType } from '../../../src/sim/types.js';
import { celatoneEvmTests, celatoneRichListTests } from './celatone-evm.js';
import { celatoneMoveObjectTests, celatoneNftTests } from './celatone-nft.js';
import { celatoneTxTests } from './celatone-txs.js';
import { ingestClientChain, type ClientChain } from './chain.js';
import { browserTests, interwovenkitTests } from './interwovenkit.js';

/** Every client-contract test of one VM, over one ingested chain. */
export function describeClientContracts(vm: VmType): void {
  describe(`client contracts on ${vm}`, () => {
    let current: ClientChain | undefined;
    beforeAll(async () => {
      current = await ingestClientChain(vm);
    }, 120_000);
    afterAll(async () => {
      await current?.close();
    });
    const chain = () => {
      if (!current) throw new Error('the chain was not ingested');
      return current;
    };
    describe('Celatone (alleslabs/celatone-frontend)', () => {
      celatoneTxTests(chain);
      celatoneNftTests(chain);
      if (vm === 'move') celatoneMoveObjectTests(chain);
      if (vm === 'evm') celatoneEvmTests(chain);
      celatoneRichListTests(chain);
    });
    describe('InterwovenKit (initia-labs/interwovenkit)', () => {
      interwovenkitTests(chain);
    });
    describe('browser clients (both)', () => {
      browserTests(chain);
    });
  });
}
