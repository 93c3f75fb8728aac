import { beforeAll, describe, expect, it } from 'vitest';
import { isOwnerEvent, isStoreCreation, sample, shape, value, type Ev } from './helpers/events.js';
import { useSimulators } from './helpers/sims.js';

interface TxResult {
  code?: number;
  events: Ev[];
}

const start = useSimulators();
const txs: TxResult[] = [];

beforeAll(async () => {
  const { urls } = await start({ vm: 'move', head: 300, seed: 3, fastSignatures: true });
  const calls = Array.from({ length: 200 }, (_, i) => ({
    jsonrpc: '2.0',
    id: i,
    method: 'block_results',
    params: { height: String(i + 1) },
  }));
  const res = await fetch(urls.rpc, { method: 'POST', body: JSON.stringify(calls) });
  const answers = (await res.json()) as Array<{ result: { txs_results: TxResult[] | null } }>;
  for (const a of answers) txs.push(...(a.result.txs_results ?? []));
});

const without = (events: Ev[], ...drop: Array<(e: Ev) => boolean>): Ev[] =>
  events.filter((e) => !drop.some((d) => d(e)));
const actions = (events: Ev[]): string[] =>
  events.filter((e) => e.type === 'message' && value(e, 'action') !== '').map((e) => value(e, 'action'));
const isSend = (t: TxResult): boolean =>
  t.code === undefined &&
  actions(t.events).every((a) => a === '/cosmos.bank.v1beta1.MsgSend') &&
  actions(t.events).length > 0;
const coinCount = (t: TxResult): number =>
  value(
    t.events.find((e) => e.type === 'coin_spent' && value(e, 'msg_index') !== '')!,
    'amount',
  ).split(',').length;
const find = (pred: (t: TxResult) => boolean): TxResult => {
  const t = txs.find(pred);
  if (!t) throw new Error('the workload produced no tx of this kind');
  return t;
};

describe('Move event sequences match the real samples', () => {
  it('failed tx: ante events only, as common/failed.json', () => {
    const failed = find((t) => t.code !== undefined);
    const real = sample('common/failed.json', 'mockMsgFailed');
    expect(shape(without(failed.events, isOwnerEvent))).toEqual(shape(real.events));
  });

  it('MsgSend to an existing account, with FA owner events (bank.json#mockMsgSendWithOwnerEvent)', () => {
    const t = find(
      (x) =>
        isSend(x) && actions(x.events).length === 1 && coinCount(x) === 1 && !x.events.some(isStoreCreation),
    );
    expect(shape(t.events)).toEqual(
      shape(sample('cosmos/move/bank.json', 'mockMsgSendWithOwnerEvent').events),
    );
  });

  it('MsgSend creating the recipient store (bank.json#mockMsgSendWithSingleCoin)', () => {
    const t = find(
      (x) =>
        isSend(x) && actions(x.events).length === 1 && coinCount(x) === 1 && x.events.some(isStoreCreation),
    );
    expect(shape(without(t.events, isOwnerEvent))).toEqual(
      shape(sample('cosmos/move/bank.json', 'mockMsgSendWithSingleCoin').events),
    );
  });

  it('multi-coin MsgSend (bank.json#mockMsgSendWithMultipleCoins)', () => {
    const t = find((x) => isSend(x) && actions(x.events).length === 1 && coinCount(x) === 3);
    const real = sample('cosmos/move/bank.json', 'mockMsgSendWithMultipleCoins');
    expect(shape(without(t.events, isOwnerEvent, isStoreCreation))).toEqual(
      shape(without(real.events, isStoreCreation)),
    );
  });

  it('multi-message MsgSend: every message block matches (bank.json#mockMsgSendWithMultipleMessages)', () => {
    const t = find((x) => isSend(x) && actions(x.events).length >= 2);
    const real = sample('cosmos/move/bank.json', 'mockMsgSendWithMultipleMessages');
    const group = (events: Ev[], i: string): string[] =>
      shape(without(events, isOwnerEvent, isStoreCreation).filter((e) => value(e, 'msg_index') === i));
    expect(group(t.events, '')).toEqual(group(real.events, ''));
    const n = actions(t.events).length;
    for (let i = 0; i < n; i++) expect(group(t.events, String(i))).toEqual(group(real.events, '0'));
  });

  it('MsgExecute starts with message{action,sender,module} then a user execute event (nft-mint.json shape)', () => {
    const t = find((x) => x.code === undefined && actions(x.events)[0] === '/initia.move.v1.MsgExecute');
    const real = sample('cosmos/move/nft/nft-mint.json', 'mockMsgNftMint');
    const firstMsg = (events: Ev[]): string[] =>
      shape(events.filter((e) => value(e, 'msg_index') === '0')).slice(0, 2);
    expect(firstMsg(t.events)).toEqual(firstMsg(real.events));
    const exec = t.events.find((e) => e.type === 'execute' && value(e, 'msg_index') === '0')!;
    expect(value(exec, 'sender')).toMatch(/^0x[1-9a-f][0-9a-f]*$/);
  });

  it('value formats: Move short addresses, amounts, acc_seq, signatures, index flags', () => {
    for (const t of txs) {
      for (const e of t.events) {
        for (const a of e.attributes ?? []) {
          expect(a.index).toBe(true);
          const v = a.value ?? '';
          if (e.type === 'move' && a.key === 'data') {
            expect(() => JSON.parse(v) as unknown).not.toThrow();
            for (const hex of v.match(/0x[0-9a-fA-F]+/g) ?? [])
              expect(hex).toMatch(/^0x(0|[1-9a-f][0-9a-f]{0,63})$/);
          }
          if (a.key === 'amount' && e.type !== 'move')
            expect(v).toMatch(/^\d+[a-zA-Z][a-zA-Z0-9/]*(,\d+[a-zA-Z][a-zA-Z0-9/]*)*$/);
          if (a.key === 'acc_seq') expect(v).toMatch(/^init1[a-z0-9]{38}\/\d+$/);
          if (a.key === 'signature') expect(Buffer.from(v, 'base64').length).toBe(64);
          if (a.key === 'msg_index') expect(v).toMatch(/^\d+$/);
          if (e.type === 'execute' && a.key === 'sender' && v.startsWith('0x1,'))
            expect(v).toMatch(/^0x1,0x[1-9a-f][0-9a-f]*$/);
        }
      }
    }
  });
});
