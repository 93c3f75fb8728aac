import { describe, expect, it } from 'vitest';
import { nullBlockRefusal, refusalOf } from './refusals.js';

const answer = (text: string, status = 500) => ({ status, text });
const SDK_PRUNED = (h: number, latest: number) =>
  `{"code":2,"message":"codespace sdk code 38: not found: failed to load state at height ${h}; version mismatch on immutable IAVL tree; version does not exist. Version has either been pruned, or is for a future block height (latest height: ${latest})","details":[]}`;

describe('refusalOf', () => {
  it("reads CometBFT's lowest height, and only when it is above the span's start", () => {
    const text = '{"error":{"data":"height 12 is not available, lowest height is 41"}}';
    expect(refusalOf(answer(text), { from: 12, to: 16 }, 60)).toEqual({ lowest: 41, exact: true });
    expect(refusalOf(answer(text), { from: 41, to: 45 }, 60)).toBeUndefined();
  });

  it("reads the SDK's pruned state (REST, minievm) as not holding the span's start; the future is no refusal", () => {
    expect(refusalOf(answer(SDK_PRUNED(12, 60)), { from: 12, to: 12 }, undefined)).toEqual({
      lowest: 13,
      exact: false,
    });
    // A trace of block 13 replays it on the state of 12.
    expect(refusalOf(answer(SDK_PRUNED(12, 60)), { from: 13, to: 13 }, 60)).toEqual({
      lowest: 14,
      exact: false,
    });
    expect(refusalOf(answer(SDK_PRUNED(70, 60)), { from: 70, to: 70 }, 60)).toBeUndefined();
  });

  it("reads geth's words; `header not found` only at or below the endpoint's head", () => {
    const trie =
      '{"jsonrpc":"2.0","id":0,"error":{"code":-32000,"message":"missing trie node 0xab (path )"}}';
    expect(refusalOf(answer(trie, 200), { from: 5, to: 9 }, 60)).toEqual({ lowest: 6, exact: false });
    const header = '{"jsonrpc":"2.0","id":0,"error":{"code":-32000,"message":"header not found"}}';
    expect(refusalOf(answer(header, 200), { from: 5, to: 5 }, 60)).toEqual({ lowest: 6, exact: false });
    expect(refusalOf(answer(header, 200), { from: 61, to: 61 }, 60)).toBeUndefined();
    expect(refusalOf(answer(header, 200), { from: 5, to: 5 }, undefined)).toBeUndefined();
  });

  it('passes ordinary answers and errors through', () => {
    expect(refusalOf(answer('{"result":{}}', 200), { from: 5, to: 5 }, 60)).toBeUndefined();
    expect(
      refusalOf(answer('{"code":13,"message":"unable to resolve type URL /x.y"}'), { from: 5, to: 5 }, 60),
    ).toBeUndefined();
  });
});

describe('nullBlockRefusal', () => {
  const heights = [38, 39, 40, 41, 42];
  const batch = (results: (string | null)[]) =>
    JSON.stringify(results.map((result, id) => ({ jsonrpc: '2.0', id, result })));

  it('takes null blocks at or below the head as pruned, above the highest of them', () => {
    const refusal = nullBlockRefusal(heights)(
      answer(batch([null, null, null, '[]', '[]']), 200),
      { from: 38, to: 42 },
      60,
    );
    expect(refusal).toEqual({ lowest: 41, exact: false });
  });

  it("takes minievm's [] receipts as pruned only for a block said to hold EVM txs, at or below the head", () => {
    const results = JSON.stringify(heights.map((_, id) => ({ jsonrpc: '2.0', id, result: [] })));
    // Blocks 39 and 41 hold EVM txs: nothing is held at or below 41.
    const holds = (h: number) => h === 39 || h === 41;
    expect(nullBlockRefusal(heights, holds)(answer(results, 200), { from: 38, to: 42 }, 60)).toEqual({
      lowest: 42,
      exact: false,
    });
    // Empty blocks are empty; past the head (40) an EVM indexer may simply not have the block yet.
    expect(nullBlockRefusal(heights)(answer(results, 200), { from: 38, to: 42 }, 60)).toBeUndefined();
    expect(
      nullBlockRefusal(heights, (h) => h === 41)(answer(results, 200), { from: 38, to: 42 }, 40),
    ).toBeUndefined();
  });

  it('takes null blocks past the head as not produced yet', () => {
    const check = nullBlockRefusal(heights);
    expect(
      check(answer(batch(['[]', '[]', null, null, null]), 200), { from: 38, to: 42 }, 39),
    ).toBeUndefined();
    expect(
      check(answer(batch([null, null, null, null, null]), 200), { from: 38, to: 42 }, undefined),
    ).toBeUndefined();
  });
});
