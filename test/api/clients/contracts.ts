import { afterAll, beforeAll, describe } from 'vitest';
import type { VmType } from '../../../src/sim/types.js';
import { celatoneEvmTests, celatoneRichListTests } from './celatone-evm.js';
import { celatoneMoveObjectTests, celatoneNftTests } from './celatone-nft.js';
import { celatoneTxTests } from './celatone-txs.js';
import { ingestClientChain, type ClientChain } from './chain.js';
import { browserTests, interwovenkitTests } from './interwovenkit.js';

/**
 * Every client-contract test of one VM, over one ingested chain: a single-chain API by default,
 * or what `open` gives (a deployment's `/chains/{chain_id}` base: test/deployment/clients.test.ts).
 */
export function describeClientContracts(
  vm: VmType,
  open: { name: string; chain: () => Promise<ClientChain> } = {
    name: '',
    chain: () => ingestClientChain(vm),
  },
): void {
  describe(`client contracts on ${vm}${open.name}`, () => {
    let current: ClientChain | undefined;
    beforeAll(async () => {
      current = await open.chain();
    }, 300_000);
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
