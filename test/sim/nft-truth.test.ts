import { describe, expect, it } from 'vitest';
import type { SimulatorUrls, VmType } from '../../src/sim/types.js';
import { applyBlock, type Lookups, type MiniNftState } from './helpers/mini-nft-indexer.js';
import type { Ev } from './helpers/events.js';
import { useSimulators } from './helpers/sims.js';

const HEAD = 240;
const start = useSimulators();

async function post<T>(url: string, body: unknown, headers: Record<string, string> = {}): Promise<T> {
  const res = await fetch(url, { method: 'POST', body: JSON.stringify(body), headers });
  return (await res.json()) as T;
}

function lookups(urls: SimulatorUrls): Lookups {
  const at = (h: number): Record<string, string> => ({ 'x-cosmos-block-height': String(h) });
  const abiString = (hex: string): string => {
    const body = hex.slice(2);
    const len = Number.parseInt(body.slice(64, 128), 16);
    return Buffer.from(body.slice(128, 128 + len * 2), 'hex').toString('utf8');
  };
  return {
    async moveNft(nft, h) {
      const res = await fetch(
        `${urls.rest}/initia/move/v1/accounts/${nft}/resources/by_struct_tag?struct_tag=0x1::nft::Nft`,
        { headers: at(h) },
      );
      const body = (await res.json()) as { resource: { move_resource: string } };
      const data = (JSON.parse(body.resource.move_resource) as { data: { token_id: string; uri: string } })
        .data;
      return { tokenId: data.token_id, uri: data.uri };
    },
    async wasmCollection(contract, h) {
      const q = Buffer.from(JSON.stringify({ contract_info: {} })).toString('base64');
      const name = (
        (await (
          await fetch(`${urls.rest}/cosmwasm/wasm/v1/contract/${contract}/smart/${q}`, { headers: at(h) })
        ).json()) as { data: { name: string } }
      ).data.name;
      const info = (await (
        await fetch(`${urls.rest}/cosmwasm/wasm/v1/contract/${contract}`, { headers: at(h) })
      ).json()) as { contract_info: { creator: string } };
      return { name, creator: info.contract_info.creator };
    },
    async evmName(contract, h) {
      const r = await post<{ response: string }>(
        `${urls.rest}/minievm/evm/v1/call`,
        { sender: 'init1', contract_addr: contract, input: '0x06fdde03', value: '0' },
        at(h),
      );
      return abiString(r.response);
    },
    async evmTokenUri(contract, id, h) {
      const input = '0xc87b56dd' + BigInt(id).toString(16).padStart(64, '0');
      const r = await post<{ response: string; error: string }>(
        `${urls.rest}/minievm/evm/v1/call`,
        { sender: 'init1', contract_addr: contract, input, value: '0' },
        at(h),
      );
      return r.error.includes('Reverted') ? '' : abiString(r.response);
    },
  };
}

describe.each<VmType>(['move', 'wasm', 'evm'])(
  'NFT ground truth follows from the emitted events (%s)',
  (vm) => {
    it('a docs/ingest.md §7 re-reading of the events reproduces truth.nftCollections / nftTokens', async () => {
      const { sim, urls } = await start({ vm, head: HEAD, txsPerBlock: '3', seed: 21, fastSignatures: true });
      const state: MiniNftState = { collections: new Map(), tokens: new Map(), firstSeen: new Map() };
      const look = lookups(urls);
      const calls = Array.from({ length: HEAD }, (_, i) => ({
        jsonrpc: '2.0',
        id: i + 1,
        method: 'block_results',
        params: { height: String(i + 1) },
      }));
      const answers = await post<
        Array<{ id: number; result: { txs_results: Array<{ events: Ev[] }> | null } }>
      >(urls.rpc, calls);
      for (const a of answers) {
        const truth = sim.truth.block(a.id);
        const txs = (a.result.txs_results ?? []).map((t, i) => ({
          events: t.events,
          signer: truth.txs[i]!.signer,
        }));
        await applyBlock(vm, state, { height: a.id, txs }, look);
      }
      const tokens = [...state.tokens.values()].sort((x, y) =>
        x.collectionAddr === y.collectionAddr
          ? Number(x.tokenId) - Number(y.tokenId)
          : x.collectionAddr < y.collectionAddr
            ? -1
            : 1,
      );
      const truthTokens = sim.truth.nftTokens(HEAD);
      expect(truthTokens.length).toBeGreaterThan(20);
      expect(tokens).toEqual(truthTokens);
      const collections = [...state.collections.entries()]
        .map(([addr, c]) => ({
          addr,
          name: c.name,
          creator: c.creator,
          originName: c.originName,
          nftCount: tokens.filter((t) => t.collectionAddr === addr).length,
        }))
        .sort((x, y) => (x.addr < y.addr ? -1 : 1));
      const truthCollections = sim.truth.nftCollections(HEAD);
      expect(truthCollections.some((c) => c.originName !== '')).toBe(true);
      expect(collections).toEqual(truthCollections);
    });
  },
);
