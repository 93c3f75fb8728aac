import { describe, expect, it } from 'vitest';
import type { VmType } from '../../src/sim/types.js';
import { sample, shape, value, type Ev } from './helpers/events.js';
import { useSimulators } from './helpers/sims.js';

const start = useSimulators();

async function txResults(vm: VmType): Promise<Ev[][]> {
  const { urls } = await start({ vm, head: 320, txsPerBlock: '3', seed: 4, fastSignatures: true });
  const calls = Array.from({ length: 320 }, (_, i) => ({
    jsonrpc: '2.0',
    id: i,
    method: 'block_results',
    params: { height: String(i + 1) },
  }));
  const answers = (await (
    await fetch(urls.rpc, { method: 'POST', body: JSON.stringify(calls) })
  ).json()) as Array<{ result: { txs_results: Array<{ events: Ev[] }> | null } }>;
  return answers.flatMap((a) => (a.result.txs_results ?? []).map((t) => t.events));
}

/** The events of message 0, i.e. what the message itself emitted. */
const msg0 = (events: Ev[]): Ev[] => events.filter((e) => value(e, 'msg_index') === '0');
const find = (all: Ev[][], pred: (events: Ev[]) => boolean): Ev[] => {
  const hit = all.find(pred);
  if (!hit) throw new Error('no simulated tx of this kind');
  return hit;
};
const hasWasm =
  (action: string) =>
  (events: Ev[]): boolean =>
    events.some((e) => e.type === 'wasm' && value(e, 'action') === action);
const hasMove =
  (tag: string) =>
  (events: Ev[]): boolean =>
    events.some((e) => e.type === 'move' && value(e, 'type_tag') === tag);

describe('Wasm message events match moo-1 samples', () => {
  it('cw721 mint, transfer_nft and cw20 transfer: event types and attribute keys in order', async () => {
    const all = await txResults('wasm');
    const withoutUri = (events: Ev[]): Ev[] =>
      events.map((e) => ({
        type: e.type,
        attributes: (e.attributes ?? []).filter((a) => a.key !== 'token_uri'),
      }));
    expect(shape(withoutUri(msg0(find(all, hasWasm('mint')))))).toEqual(
      shape(msg0(sample('cosmos/wasm/cw721-mint.json', 'mockCw721Mint').events)),
    );
    expect(shape(msg0(find(all, hasWasm('transfer_nft'))))).toEqual(
      shape(msg0(sample('cosmos/wasm/cw721-transfer.json', 'mockCw721Transfer').events)),
    );
    expect(shape(msg0(find(all, hasWasm('transfer'))))).toEqual(
      shape(msg0(sample('cosmos/wasm/cw20-transfer.json', 'mockCw20Transfer').events)),
    );
    const ante = (events: Ev[]): string[] => shape(events.filter((e) => value(e, 'msg_index') === ''));
    expect(ante(find(all, hasWasm('mint')))).toEqual(
      ante(sample('cosmos/wasm/cw721-mint.json', 'mockCw721Mint').events),
    );
  });
});

describe('Move NFT message events match the real samples', () => {
  it('simple_nft mint, burn and object transfer', async () => {
    const all = await txResults('move');
    const mintReal = msg0(sample('cosmos/move/nft/nft-mint.json', 'mockMsgNftMint').events).slice(1);
    // A mint to someone other than the creator adds a TransferEvent after the MintEvent.
    const mintTx = find(
      all,
      (e) => hasMove('0x1::collection::MintEvent')(e) && !e.some((x) => x.type === 'recv_packet'),
    );
    const mintSim = msg0(mintTx)
      .slice(1)
      .filter((e) => value(e, 'type_tag') !== '0x1::object::TransferEvent');
    expect(shape(mintSim)).toEqual(shape(mintReal));
    const burnReal = msg0(sample('cosmos/move/nft/nft-burn.json', 'mockMsgNftBurn').events).slice(1);
    expect(shape(msg0(find(all, hasMove('0x1::collection::BurnEvent'))).slice(1))).toEqual(shape(burnReal));
    const transferReal = msg0(
      sample('cosmos/move/object-transfer/object-transfer.json', 'mockMsgObjectTransfer').events,
    );
    const transferSim = msg0(
      find(all, (e) => hasMove('0x1::object::TransferEvent')(e) && !hasMove('0x1::collection::MintEvent')(e)),
    );
    expect(shape(transferSim)).toEqual(shape(transferReal));
  });
});
