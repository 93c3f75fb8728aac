import { describe, expect, it } from 'vitest';
import { toBech32 } from '../../src/shared/address.js';
import type { SimulatorOptions, TxTruth } from '../../src/sim/types.js';
import { useSimulators } from './helpers/sims.js';

/**
 * Move marketplace offers (src/sim/chain/nft-market.ts): txs that name a live NFT object without
 * an NFT event. Checked against the chain's own events, read back over CometBFT RPC: the object
 * an offer's truth records is the object minted for that token, live (its last NFT event before
 * the offer is not a burn), named in the offer's events and so among its accounts; the offer
 * itself carries no NFT event. Wasm and EVM chains have no offers.
 */
const HEAD = 600;
const start = useSimulators();

interface Ev {
  type: string;
  attributes?: Array<{ key: string; value?: string }>;
}

const pad64 = (hex: string) => '0x' + hex.replace(/^0x/, '').toLowerCase().padStart(64, '0');
const NFT_TAGS: Record<string, string> = {
  '0x1::collection::MintEvent': 'mint',
  '0x1::object::TransferEvent': 'transfer',
  '0x1::nft::MutationEvent': 'mutate',
  '0x1::collection::BurnEvent': 'burn',
};

/** Every tx of heights 1..HEAD: its truth and its events. */
async function chain(options: Partial<SimulatorOptions>) {
  const { sim, urls } = await start({
    vm: 'move',
    head: HEAD,
    txsPerBlock: '0-3',
    fastSignatures: true,
    ...options,
  });
  const out: Array<{ truth: TxTruth; events: Ev[] }> = [];
  for (let from = 1; from <= HEAD; from += 100) {
    const calls = Array.from({ length: Math.min(100, HEAD - from + 1) }, (_, i) => ({
      jsonrpc: '2.0',
      id: from + i,
      method: 'block_results',
      params: { height: String(from + i) },
    }));
    const res = await fetch(urls.rpc, { method: 'POST', body: JSON.stringify(calls) });
    const answers = (await res.json()) as Array<{
      id: number;
      result: { txs_results: Array<{ events: Ev[] }> | null };
    }>;
    for (const a of answers.sort((x, y) => x.id - y.id)) {
      const truths = sim.truth.block(a.id).txs;
      (a.result.txs_results ?? []).forEach((r, i) => out.push({ truth: truths[i]!, events: r.events }));
    }
  }
  return out;
}

function moveData(e: Ev): { tag: string; data: Record<string, string> } | undefined {
  if (e.type !== 'move') return undefined;
  const attrs = new Map((e.attributes ?? []).map((a) => [a.key, a.value ?? '']));
  return {
    tag: attrs.get('type_tag') ?? '',
    data: JSON.parse(attrs.get('data') ?? '{}') as Record<string, string>,
  };
}

describe('Move marketplace offers', () => {
  for (const [label, options] of [
    ['default NFT share', {}],
    ['NFT share 0.8', { nftShare: 0.8, txsPerBlock: '0-6' }],
  ] as const) {
    it(`${label}: each offer names a live, minted object, without an NFT event`, async () => {
      const txs = await chain(options);
      const objectOf = new Map<string, string>();
      const lastEvent = new Map<string, string>();
      let offers = 0;
      for (const { truth, events } of txs) {
        for (const m of truth.nftMentions ?? []) {
          offers += 1;
          const key = `${m.collectionAddr}/${m.tokenId}`;
          expect(objectOf.get(key), `${key} minted before the offer`).toBe(m.objectAddr);
          expect(lastEvent.get(m.objectAddr), `${key} live at the offer`).not.toBe('burn');
          expect(truth.accounts).toContain(toBech32(Buffer.from(m.objectAddr.slice(2), 'hex'), 'init'));
          const named = events
            .map(moveData)
            .filter((d) => d && JSON.stringify(d.data).includes(m.objectAddr.replace(/^0x0*/, '')));
          expect(named.map((d) => d!.tag)).toEqual([expect.stringMatching(/::marketplace::OfferEvent$/)]);
        }
        for (const e of events) {
          const d = moveData(e);
          const kind = d && NFT_TAGS[d.tag];
          if (!d || !kind) continue;
          const object = pad64(
            kind === 'mint' || kind === 'burn' || kind === 'mutate' ? d.data.nft! : d.data.object!,
          );
          if (kind === 'mint') objectOf.set(`${pad64(d.data.collection!)}/${d.data.token_id}`, object);
          lastEvent.set(object, kind);
        }
      }
      expect(offers).toBeGreaterThan(HEAD / 20);
    });
  }

  it('Wasm and EVM chains make no offers', async () => {
    for (const vm of ['wasm', 'evm'] as const) {
      const { sim } = await start({ vm, head: 200, txsPerBlock: '0-3' });
      for (let h = 1; h <= 200; h++)
        for (const t of sim.truth.block(h).txs) expect(t.nftMentions).toBeUndefined();
    }
  });
});
