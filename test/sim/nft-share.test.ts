import { describe, expect, it } from 'vitest';
import {
  gOfSlotPhase,
  nftOpAt,
  opIndexOf,
  parseNftShare,
  type NftPlanContext,
} from '../../src/sim/chain/nft-lifecycle.js';
import { createSimulator } from '../../src/sim/simulator.js';
import { useSimulators } from './helpers/sims.js';

const startSim = useSimulators();

describe('--nft-share', () => {
  it('parses multiples of 0.05 in (0, 1] into reduced fractions, and refuses anything else', () => {
    expect(parseNftShare(0.2)).toEqual({ per: 1, every: 5 });
    expect(parseNftShare(0.8)).toEqual({ per: 4, every: 5 });
    expect(parseNftShare(0.05)).toEqual({ per: 1, every: 20 });
    expect(parseNftShare(0.35)).toEqual({ per: 7, every: 20 });
    expect(parseNftShare(1)).toEqual({ per: 1, every: 1 });
    for (const bad of [0, 0.03, 1.05, -0.2, Number.NaN])
      expect(() => parseNftShare(bad), String(bad)).toThrow(/--nft-share must be a multiple of 0.05/);
    expect(() => createSimulator({ vm: 'wasm', nftShare: 0.33 })).toThrow(/--nft-share/);
  });

  it('op index and tx index are inverse, and the share of NFT txs is the one asked for', () => {
    for (const share of [0.2, 0.8, 0.35, 1]) {
      const plan: NftPlanContext = { seed: 3, accounts: 16, uriMutation: false, share: parseNftShare(share) };
      let ops = 0;
      for (let g = 0; g < 2_000; g++) {
        const n = opIndexOf(plan, g);
        if (n === undefined) continue;
        expect(n, `share ${share} g ${g}`).toBe(ops); // ops are numbered densely in tx order
        ops++;
      }
      expect(ops).toBe(Math.round(2_000 * share));
      // Every phase of a token lands on a tx that is that NFT operation.
      for (let slot = 0; slot < 40; slot++)
        for (let phase = 0; phase < 4; phase++)
          expect(opIndexOf(plan, gOfSlotPhase(plan, slot, phase))).toBeDefined();
      const kinds = new Set<string>();
      for (let g = 0; g < 2_000; g++) kinds.add(nftOpAt(plan, g)?.kind ?? 'none');
      for (const kind of ['create-collection', 'mint', 'transfer', 'burn', 'ibc-receive'])
        expect(kinds.has(kind), `share ${share}: ${kind}`).toBe(true);
    }
  });

  it('an explicit 0.2 serves the same chain byte for byte as no option; 0.8 another one', async () => {
    const paths = (h: number) => [`/block?height=${h}`, `/block_results?height=${h}`];
    const answers = async (options: { nftShare?: number }) => {
      const { urls } = await startSim({ vm: 'evm', head: 300, seed: 5, ...options });
      const out: string[] = [];
      for (const h of [1, 17, 150, 299])
        for (const p of paths(h)) out.push(await (await fetch(urls.rpc + p)).text());
      out.push(await (await fetch(`${urls.rest}/sim/v1/truth/nft_tokens?height=300`)).text());
      return out;
    };
    const plain = await answers({});
    expect(await answers({ nftShare: 0.2 })).toEqual(plain);
    expect(await answers({ nftShare: 0.8 })).not.toEqual(plain);
  });
});
