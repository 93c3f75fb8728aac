import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bech32Of, FAKE_WASM, KEYS, scoresCsv, startHarness, type Harness } from './harness.js';

let h: Harness;
let contract: string;

beforeAll(async () => {
  h = await startHarness('wasm');
});
afterAll(async () => h?.close());

const args = () => [...h.baseArgs(), '--contract', contract];

describe('vip CLI on a Wasm rollup (chain model)', () => {
  it('deploys: store code, instantiate with allow list and admin; record has code id and address', async () => {
    const wasm = await h.file('vip_score.wasm', FAKE_WASM);
    const out = await h.vip([
      'deploy',
      ...h.baseArgs(),
      '--wasm',
      wasm,
      '--init-stage',
      '3',
      '--record',
      `${h.dir}/rec.json`,
    ]);
    const record = out.record as Record<string, string>;
    expect(record).toMatchObject({ vm: 'wasm', initStage: '3', codeId: '1', rollupVersion: 'v1.0.2' });
    contract = record.contractAddress as string;
    const c = h.chain.wasmContract(contract);
    expect(c?.admin).toBe(bech32Of(KEYS.deployer));
    expect([...(c?.model.allowList ?? [])]).toEqual([bech32Of(KEYS.deployer)]);
    expect(out.proposal).toBeUndefined();
  });

  it('mainnet deploy prints the whitelist proposal message', async () => {
    const wasm = await h.file('vip_score2.wasm', FAKE_WASM);
    const out = await h.vip([
      'deploy',
      ...h.baseArgs(),
      '--wasm',
      wasm,
      '--init-stage',
      '3',
      '--record',
      `${h.dir}/rec2.json`,
      '--network',
      'mainnet',
    ]);
    expect(out.proposal).toMatchObject({
      function_name: 'register',
      args_json: {
        vm_type: 1,
        vip_l2_score_contract: (out.record as { contractAddress: string }).contractAddress,
      },
    });
  });

  it('scores 10,000 addresses (mixed address forms, normalised to lowercase bech32) and finalizes', async () => {
    const { csv, total } = scoresCsv(10_000);
    const file = await h.file('s3.csv', csv);
    const out = await h.vip([
      'update-scores',
      ...args(),
      '--stage',
      '3',
      '--scores',
      file,
      '--progress',
      `${h.dir}/p3.json`,
    ]);
    expect(out).toMatchObject({ entries: 10_000, onChainTotal: String(total), totalsChecked: true });
    const model = h.chain.wasmContract(contract)?.model;
    expect([...(model?.scores.keys() ?? [])].every((k) => /^3\|init1[02-9ac-hj-np-z]+$/.test(k))).toBe(true);
    await h.vip(['finalize', ...args(), '--stage', '3']);
    expect(model?.stages.get(3n)?.isFinalized).toBe(true);
    expect(model?.stages.get(4n)).toMatchObject({ totalScore: 0n, isFinalized: false });
  });

  it('never re-finalizes (which would reset the next stage on Wasm)', async () => {
    // Upper-case bech32 is valid but the contract compares raw strings: it must be lower-cased.
    const small = await h.file('s4.csv', `${bech32Of(KEYS.other).toUpperCase()},5\n`);
    await h.vip([
      'update-scores',
      ...args(),
      '--stage',
      '4',
      '--scores',
      small,
      '--progress',
      `${h.dir}/p4.json`,
    ]);
    const model = h.chain.wasmContract(contract)?.model;
    expect(model?.stages.get(4n)?.totalScore).toBe(5n);
    expect(model?.scores.get(`4|${bech32Of(KEYS.other)}`)).toBe(5n);
    const before = h.chain.stats.includedTxs;
    const again = await h.vip(['finalize', ...args(), '--stage', '3']);
    expect(again).toEqual({ finalized: [{ stage: '3', skipped: 'already finalized' }] });
    expect(h.chain.stats.includedTxs).toBe(before);
    expect(model?.stages.get(4n)?.totalScore).toBe(5n);
  });

  it('allow / disallow another member; a non-member is refused before signing', async () => {
    const other = bech32Of(KEYS.other);
    await h.vip(['allow', other, ...args()]);
    const model = h.chain.wasmContract(contract)?.model;
    expect(model?.allowList.has(other)).toBe(true);
    await h.vip(['disallow', other, ...args()]);
    expect(model?.allowList.has(other)).toBe(false);
    const file = await h.file('o.csv', scoresCsv(2).csv);
    const before = h.chain.stats.includedTxs;
    await expect(
      h.vip([
        'update-scores',
        ...h.baseArgs('other'),
        '--contract',
        contract,
        '--stage',
        '4',
        '--scores',
        file,
      ]),
    ).rejects.toMatchObject({ code: 'not_permitted' });
    expect(h.chain.stats.includedTxs).toBe(before);
  });

  it('--dry-run prints the exact messages and fee and signs nothing', async () => {
    const file = await h.file('d.csv', scoresCsv(3).csv);
    const before = h.chain.stats.includedTxs;
    const seq = h.chain.account(bech32Of(KEYS.deployer))?.sequence;
    h.outputs.length = 0;
    const out = await h.vip(['update-scores', ...args(), '--dry-run', '--stage', '4', '--scores', file]);
    expect(out).toMatchObject({ dryRun: true, txs: 1 });
    const planned = h.outputs[0] as { fee: string; messages: { msg: unknown; '@type': string }[] };
    expect(planned.fee).toMatch(/^\d+umin$/);
    expect(planned.messages[0]?.['@type']).toBe('/cosmwasm.wasm.v1.MsgExecuteContract');
    expect(planned.messages[0]?.msg).toEqual({ update_scores: { stage: 4, scores: expect.any(Array) } });
    expect(h.chain.stats.includedTxs).toBe(before);
    expect(h.chain.account(bech32Of(KEYS.deployer))?.sequence).toBe(seq);
  });
});
