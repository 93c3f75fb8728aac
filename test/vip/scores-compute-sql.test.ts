import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/store/driver/db.js';
import { computeScores, type ComputeResult } from '../../src/vip/scores/compute.js';
import { parseDecimal } from '../../src/vip/scores/decimal.js';
import { explainAddress } from '../../src/vip/scores/explain.js';
import { moduleAddressHex } from '../../src/vip/scores/module-accounts.js';
import { parseRules, type LoadedRules, type ScoreMetric } from '../../src/vip/scores/rules.js';
import type { WindowSpec } from '../../src/vip/scores/window.js';
import { testDbFactories } from '../helpers/db.js';
import { accountOf, bech32Of, hexOf, writeScoresChain, type BlockSpec, type TxSpec } from './scores-chain.js';

/**
 * Every metric kind's SQL on a hand-made chain written through the real block writer, on PGlite
 * and PostgreSQL; expected values are counted by hand from the chain below.
 */

const A = accountOf('A');
const B = accountOf('B');
const C = accountOf('C');
const D = accountOf('D');
const M = Buffer.from(moduleAddressHex('fee_collector'), 'hex');
const K = accountOf('K-contract');
const X = accountOf('X-wasm', 32);

const T0 = Date.UTC(2026, 10, 1, 0, 0, 0);
const HOUR = 3_600_000;
const uinit = (amount: number) => [{ denom: 'uinit', amount: String(amount) }];
const send = (signer: Uint8Array, gas: number, fee: number, code = 0): TxSpec => ({
  signer,
  code,
  gasUsed: String(gas),
  fees: uinit(fee),
});
const moveCall = (
  signer: Uint8Array,
  addr: string,
  fn: string,
  gas: number,
  fee: number,
  code = 0,
): TxSpec => ({
  signer,
  code,
  gasUsed: String(gas),
  fees: uinit(fee),
  messages: [
    {
      '@type': '/initia.move.v1.MsgExecute',
      sender: bech32Of(signer),
      module_address: addr,
      module_name: 'dex',
      function_name: fn,
      type_args: [],
      args: [],
    },
  ],
});
const evmCall = (signer: Uint8Array, input: string, gas: number, fee: number, code = 0): TxSpec => ({
  signer,
  code,
  gasUsed: String(gas),
  fees: uinit(fee),
  messages: [
    {
      '@type': '/minievm.evm.v1.MsgCall',
      sender: bech32Of(signer),
      contract_addr: hexOf(K).toUpperCase().replace('0X', '0x'),
      input,
      value: '0',
    },
  ],
});

/** Blocks 1..8, six hours apart (UTC dates: blocks 1-4 on one day, 5-8 on the next). */
const BLOCKS: BlockSpec[] = [
  { timeMs: T0, txs: [send(A, 100, 10)] },
  {
    timeMs: T0 + 6 * HOUR,
    txs: [
      { ...send(B, 70, 7, 5), fees: [...uinit(7), { denom: 'uusdc', amount: '3' }] },
      moveCall(A, '0x1', 'swap', 200, 20),
    ],
  },
  { timeMs: T0 + 12 * HOUR, txs: [] },
  {
    timeMs: T0 + 18 * HOUR,
    txs: [
      moveCall(A, '0x1', 'other', 50, 5),
      {
        ...send(C, 30, 1),
        messages: [
          {
            '@type': '/cosmwasm.wasm.v1.MsgExecuteContract',
            sender: bech32Of(C),
            contract: bech32Of(X),
            msg: {},
          },
        ],
      },
    ],
  },
  { timeMs: T0 + 24 * HOUR, txs: [send(B, 10, 2), send(M, 10, 1)] },
  {
    timeMs: T0 + 30 * HOUR,
    txs: [
      evmCall(D, '0xa9059cbb0000', 300, 30),
      evmCall(D, '0x12345678', 300, 30),
      evmCall(C, '0xa9059cbb', 40, 4, 3),
    ],
  },
  {
    timeMs: T0 + 36 * HOUR,
    txs: [moveCall(A, `0x${'0'.repeat(63)}1`, 'swap', 200, 20), moveCall(A, '0x1', 'swap', 20, 2, 1)],
  },
  { timeMs: T0 + 42 * HOUR, txs: [send(A, 100, 10)] },
];

const iso = (ms: number) => new Date(ms).toISOString();
const loaded = (text: string): LoadedRules => ({
  rules: parseRules(text, 'r.yaml'),
  sha256: 'f'.repeat(64),
  path: 'r.yaml',
});

/** One metric named m of weight 1; `keys` are the rules file's own keys for the kind. */
function metricRules(kind: ScoreMetric['kind'], keys: Record<string, unknown> = {}): LoadedRules {
  const extra = Object.entries(keys)
    .map(([k, v]) => `    ${k}: ${JSON.stringify(v)}\n`)
    .join('');
  return loaded(`version: 1\nmetrics:\n  - name: m\n    kind: ${kind}\n    weight: 1\n${extra}`);
}

/** Per address (hex of the account bytes) → the metric's value, exclusions included. */
function valuesOf(result: ComputeResult): Record<string, string> {
  const out: Record<string, string> = {};
  for (const s of result.all.values()) out[s.address] = s.values.m ?? '0';
  return out;
}

describe.each(testDbFactories())('vip scores SQL on $name', (factory) => {
  let db: Db;
  let dispose: () => Promise<void>;
  beforeAll(async () => {
    ({ db, dispose } = await factory.create());
    await writeScoresChain(db, { chainId: 'scores-1', vm: 'evm' }, BLOCKS, 3);
  });
  afterAll(() => dispose());

  const run = (rules: LoadedRules, window: WindowSpec = { from: '1', to: '8' }) =>
    computeScores({ db }, { stage: 7n, rules, window });
  const h = hexOf;

  it('txs_signed counts successful txs per first signer', async () => {
    expect(valuesOf(await run(metricRules('txs_signed')))).toEqual({
      [h(A)]: '5',
      [h(B)]: '1',
      [h(C)]: '1',
      [h(D)]: '2',
      [h(M)]: '1',
    });
  });

  it('gas_used charges every tx, failed ones too, to the fee payer', async () => {
    expect(valuesOf(await run(metricRules('gas_used')))).toEqual({
      [h(A)]: '670',
      [h(B)]: '80',
      [h(C)]: '70',
      [h(D)]: '600',
      [h(M)]: '10',
    });
  });

  it('fees_paid sums one denom over every tx', async () => {
    expect(valuesOf(await run(metricRules('fees_paid', { denom: 'uinit' })))).toEqual({
      [h(A)]: '67',
      [h(B)]: '9',
      [h(C)]: '5',
      [h(D)]: '60',
      [h(M)]: '1',
    });
    expect(valuesOf(await run(metricRules('fees_paid', { denom: 'uusdc' })))).toEqual({
      [h(B)]: '3',
    });
  });

  it('msg_txs counts successful txs by type, with the Move and Wasm filters', async () => {
    const types = { msg_types: ['initia.move.v1.MsgExecute'] };
    expect(valuesOf(await run(metricRules('msg_txs', types)))).toEqual({ [h(A)]: '3' });
    const swap = { ...types, move: { module_address: '0x1', module_name: 'dex', function: 'swap' } };
    expect(valuesOf(await run(metricRules('msg_txs', swap)))).toEqual({ [h(A)]: '2' });
    const wasm = { msg_types: ['/cosmwasm.wasm.v1.MsgExecuteContract'], wasm: { contract: hexOf(X) } };
    expect(valuesOf(await run(metricRules('msg_txs', wasm)))).toEqual({ [h(C)]: '1' });
  });

  it('evm_txs_to counts successful calls to the contract, with the selector', async () => {
    const to = { contract: hexOf(K) };
    expect(valuesOf(await run(metricRules('evm_txs_to', to)))).toEqual({ [h(D)]: '2' });
    const sel = { ...to, selector: '0xA9059CBB' };
    expect(valuesOf(await run(metricRules('evm_txs_to', sel)))).toEqual({ [h(D)]: '1' });
  });

  it('active_days counts distinct UTC dates with a successful signed tx', async () => {
    expect(valuesOf(await run(metricRules('active_days')))).toEqual({
      [h(A)]: '2',
      [h(B)]: '1',
      [h(C)]: '1',
      [h(D)]: '1',
      [h(M)]: '1',
    });
  });

  it('time windows: first block at or after from, last block before to', async () => {
    const at = (from: number, to: number) => run(metricRules('txs_signed'), { from: iso(from), to: iso(to) });
    const exact = await at(T0 + 6 * HOUR, T0 + 36 * HOUR);
    expect([exact.window.fromHeight, exact.window.toHeight]).toEqual([2, 6]);
    const later = await at(T0 + 6 * HOUR + 1, T0 + 36 * HOUR + 1);
    expect([later.window.fromHeight, later.window.toHeight]).toEqual([3, 7]);
    // Heights 3 alone hold no tx: an empty, valid window.
    const empty = await run(metricRules('txs_signed'), { from: '3', to: '3' });
    expect(empty.rows).toEqual([]);
  });

  it('refuses a window the index has not covered', async () => {
    const rules = metricRules('txs_signed');
    await expect(run(rules, { from: '1', to: '9' })).rejects.toMatchObject({ code: 'window_not_indexed' });
    await expect(run(rules, { from: iso(T0), to: iso(T0 + 42 * HOUR + 1) })).rejects.toMatchObject({
      code: 'window_not_indexed',
    });
    await expect(run(rules, { from: '5', to: '4' })).rejects.toMatchObject({ code: 'invalid_window' });
    await expect(run(rules, { from: iso(T0 + HOUR), to: iso(T0 + 2 * HOUR) })).rejects.toMatchObject({
      code: 'window_empty',
    });
  });

  const SCORING = `version: 1
metrics:
  - { name: signed, kind: txs_signed, weight: 1 }
  - { name: gas, kind: gas_used, weight: "0.01" }
  - { name: fees, kind: fees_paid, denom: uinit, weight: 0.5 }
  - { name: days, kind: active_days, weight: 3 }
cap: 20
minimum: 10
exclude: ["${bech32Of(C)}"]
`;

  it('weights, rounds, caps, applies the minimum and the exclusions; rows sorted by address', async () => {
    const result = await run(loaded(SCORING));
    // A: 5 + 6.7 + 33.5 + 6 = 51.2 → 51 → cap 20; B: 1 + 0.8 + 4.5 + 3 = 9.3 → 9 < 10;
    // D: 2 + 6 + 30 + 3 = 41 → 20; C excluded by the rules; M is a module account.
    const expected = [
      { address: h(A), amount: 20n },
      { address: h(D), amount: 20n },
    ].sort((x, y) => (x.address < y.address ? -1 : 1));
    expect(result.rows).toEqual(expected);
    expect(result.all.get(h(B))?.outcome).toBe('below_minimum');
    expect(result.all.get(h(C))?.outcome).toBe('excluded');
    expect(result.all.get(h(M))?.exclusion).toBe('module account fee_collector');
    expect(result.csv.split('\n').filter((l) => !l.startsWith('#'))).toEqual([
      'address,amount',
      ...expected.map((r) => `${r.address},${r.amount}`),
      '',
    ]);
    expect(result.meta.window).toMatchObject({ from_height: 1, to_height: 8, source: 'heights' });
    expect(result.meta.total_score).toBe('40');
  });

  it('is deterministic: the same inputs give the same bytes', async () => {
    const a = await run(loaded(SCORING));
    const b = await run(loaded(SCORING));
    expect(b.csv).toBe(a.csv);
    expect(b.metaJson).toBe(a.metaJson);
  });

  it('explain shows each contribution, the rounding and the cap', async () => {
    const rules = loaded(SCORING);
    const e = explainAddress(await run(rules), rules.rules, bech32Of(A), 'init');
    expect(e.metrics.map((m) => [m.name, m.value, m.contribution])).toEqual([
      ['signed', '5', '5'],
      ['gas', '670', '6.7'],
      ['fees', '67', '33.5'],
      ['days', '2', '6'],
    ]);
    expect(e).toMatchObject({
      weighted_sum: '51.2',
      rounded: '51',
      capped: true,
      outcome: 'scored',
      amount_in_file: '20',
    });
    const b = explainAddress(await run(rules), rules.rules, hexOf(B), 'init');
    expect(b).toMatchObject({
      weighted_sum: '9.3',
      rounded: '9',
      outcome: 'below_minimum',
      amount_in_file: null,
    });
  });

  it('renders addresses in the form update-scores sends for the VM', async () => {
    expect(parseDecimal('0.5')?.scaled).toBe(5n * 10n ** 17n);
    for (const [vm, form] of [
      ['wasm', bech32Of(A)],
      ['move', `0x${'0'.repeat(24)}${hexOf(A).slice(2)}`],
    ] as const) {
      const other = await factory.create();
      try {
        await writeScoresChain(other.db, { chainId: `${vm}-1`, vm }, BLOCKS.slice(0, 1));
        const result = await computeScores(
          { db: other.db },
          { stage: 1n, rules: metricRules('txs_signed'), window: { from: '1', to: '1' } },
        );
        expect(result.rows).toEqual([{ address: form, amount: 1n }]);
      } finally {
        await other.dispose();
      }
    }
  });
});
