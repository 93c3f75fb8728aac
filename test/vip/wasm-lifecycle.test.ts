import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harnessBackend } from './in-process.js';
import { bech32Of, chainArgv, FAKE_WASM, KEYS, scoresCsv, startHarness, type Harness } from './harness.js';
import { deployVipScore, updateScoresArgv } from './cli-args.js';

let h: Harness;
let contract: string;

beforeAll(async () => {
  h = await startHarness('wasm');
});
afterAll(async () => h?.close());

const args = () => [...h.baseArgs(), '--contract', contract];

/** `vip deploy` of a fresh Wasm code file (initial stage 3), recording to `record`. */
async function deploy(code: string, record: string, ...extra: string[]) {
  return (await deployVipScore(h, { code, initStage: '3', record }, ...extra)).out;
}

describe('vip CLI on a Wasm rollup (chain model)', () => {
  it('deploys: store code, instantiate with allow list and admin; record has code id and address', async () => {
    const out = await deploy('vip_score.wasm', 'rec.json');
    const record = out.record as Record<string, string>;
    expect(record).toMatchObject({ vm: 'wasm', initStage: '3', codeId: '1', rollupVersion: 'v1.0.2' });
    contract = record.contractAddress as string;
    const c = h.chain.wasmContract(contract);
    expect(c?.admin).toBe(bech32Of(KEYS.deployer));
    expect([...(c?.model.allowList ?? [])]).toEqual([bech32Of(KEYS.deployer)]);
    expect(out.proposal).toBeUndefined();
  });

  it('mainnet deploy prints the whitelist proposal message', async () => {
    const out = await deploy('vip_score2.wasm', 'rec2.json', '--network', 'mainnet');
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

  it('status reads init stage (raw state), stages, totals; writers are not listable on Wasm', async () => {
    const out = await h.vip(['status', ...args()]);
    expect(out).toMatchObject({
      initStage: '3',
      openStage: '4',
      finalizedStages: ['3'],
      writers: null,
      senderMayWrite: true,
    });
    expect((out.stages as { stage: string; totalScore: string }[])[1]).toEqual({
      stage: '4',
      totalScore: '5',
      isFinalized: false,
    });
  });

  it('deploy --dry-run prints the store message and signs nothing', async () => {
    const wasm = await h.file('dry.wasm', FAKE_WASM);
    const before = h.chain.stats.includedTxs;
    const out = await h.vip([
      'deploy',
      ...h.baseArgs(),
      '--dry-run',
      '--wasm',
      wasm,
      '--init-stage',
      '3',
      '--record',
      `${h.dir}/dry.json`,
    ]);
    expect(out).toMatchObject({
      dryRun: true,
      thenSends: ['instantiate'],
      messages: [{ '@type': '/cosmwasm.wasm.v1.MsgStoreCode' }],
    });
    expect(h.chain.stats.includedTxs).toBe(before);
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

describe('Wasm contract errors decode from the chain (simulation and DeliverTx)', () => {
  it('not allowed, stage not found (panic in update_scores), finalized stage', async () => {
    const owner = await harnessBackend(h, 'wasm', contract);
    const other = await harnessBackend(h, 'wasm', contract, 'other');
    const entry = [{ addr: bech32Of(KEYS.other), amount: 1n }];
    await expect(other.plan({ kind: 'updateScores', stage: 4n, entries: entry })).rejects.toMatchObject({
      reason: 'Address is not allowed',
    });
    await expect(owner.plan({ kind: 'updateScores', stage: 40n, entries: entry })).rejects.toMatchObject({
      reason: 'Stage not found',
    });
    await expect(owner.plan({ kind: 'updateScores', stage: 3n, entries: entry })).rejects.toMatchObject({
      reason: 'Stage finalized',
      message: expect.stringMatching(/panicked/),
    });
    await expect(owner.plan({ kind: 'finalize', stage: 40n })).rejects.toMatchObject({
      reason: 'Stage not found',
    });
    expect(await other.isWriter(await other.senderAddress())).toBe(false);
    expect(await owner.isWriter(await owner.senderAddress())).toBe(true);
  });

  it('a secp256k1 (coin type 118) key signs accepted txs too, read from --key-file', async () => {
    const keyFile = await h.file('k.txt', 'test test test test test test test test test test test junk\n');
    const { privateKeyFromSecret, createLocalSigner, addressOfPublicKey } =
      await import('../../src/vip/signer.js');
    const { toBech32 } = await import('../../src/shared/address.js');
    const signer = createLocalSigner(
      privateKeyFromSecret('test test test test test test test test test test test junk', 'secp256k1', 0),
      'secp256k1',
    );
    const addr = toBech32(addressOfPublicKey(await signer.publicKey(), 'secp256k1'), 'init');
    h.chain.fundAccount(addr);
    await h.vip(['allow', addr, ...args()]);
    const file = await h.file('k.csv', `${bech32Of(KEYS.deployer)},11\n`);
    const base = chainArgv(
      { vm: 'wasm', rest: h.server.url, chainId: h.chain.options.chainId },
      '--key-file',
      keyFile,
      '--key-type',
      'secp256k1',
    );
    const out = await h.vip(updateScoresArgv(base, contract, '4', file, '--progress', `${h.dir}/k.json`));
    expect(out).toMatchObject({ txs: 1 });
    expect(h.chain.account(addr)?.algo).toBe('secp256k1');
    expect(h.chain.wasmContract(contract)?.model.scores.get(`4|${bech32Of(KEYS.deployer)}`)).toBe(11n);
    expect(h.logs.join('')).not.toContain('junk');
  });
});
