import { describe, expect, it } from 'vitest';
import { MsgExecute } from '@initia/initia.proto/initia/move/v1/tx.js';
import { MsgExecuteContract } from '@initia/initia.proto/cosmwasm/wasm/v1/tx.js';
import { bcsAddress, bcsU64, bcsVector } from '../../vip/move/bcs.js';
import { decodeCosmosReason } from '../../vip/chain-error.js';
import { executeMove } from './exec-move.js';
import { executeContract, type WasmState } from './exec-wasm.js';
import { MoveArithmeticError, MoveVipScore } from './move-model.js';
import { TxReject } from './tx-decode.js';
import { WasmVipScore } from './wasm-model.js';

const MAX = (1n << 64n) - 1n;
const P = `0x${'01'.repeat(32)}`;
const A = `0x${'0a'.repeat(32)}`;
const B = `0x${'0b'.repeat(32)}`;

function caught(fn: () => unknown): TxReject {
  try {
    fn();
  } catch (err) {
    if (err instanceof TxReject) return err;
    throw err;
  }
  throw new Error('expected the message to fail');
}

describe('u64 overflow in the Move model (vip_score.move: checked u64 `+`)', () => {
  const setup = () => {
    const m = new MoveVipScore(P);
    m.addDeployer(P, P, true);
    m.setInitStage(P, 1n, true);
    return new Map([[P, m]]);
  };
  const update = (amounts: bigint[]) =>
    MsgExecute.fromPartial({
      sender: P,
      moduleAddress: P,
      moduleName: 'vip_score',
      functionName: 'update_score_script',
      args: [bcsU64(1n), bcsVector([bcsAddress(A), bcsAddress(B)]), bcsVector(amounts.map(bcsU64))],
    });

  it('a stage total past u64::MAX fails the tx as the VM does: code 1, codespace undefined, VM status log', () => {
    const modules = setup();
    const err = caught(() => executeMove(modules, update([MAX, 1n]), 'init', true));
    expect({ code: err.code, codespace: err.codespace }).toEqual({ code: 1, codespace: 'undefined' });
    expect(err.message).toBe(
      `VM failure: status ARITHMETIC_ERROR of type Execution with message Addition overflow, location=${'01'.repeat(32)}::vip_score`,
    );
    expect(decodeCosmosReason(`failed to execute message; message index: 0: ${err.message}`)).toBe(
      'ARITHMETIC_ERROR',
    );
    // Nothing of the failed batch is kept, not even the entries before the overflowing one.
    expect(modules.get(P)?.getTotalScore(1n)).toBe(0n);
    expect(modules.get(P)?.getScore(A, 1n)).toBe(0n);
    // Exactly u64::MAX still fits.
    executeMove(modules, update([MAX - 1n, 1n]), 'init', true);
    expect(modules.get(P)?.getTotalScore(1n)).toBe(MAX);
  });

  it('aborts share the VM failure code and keep their module code in the log', () => {
    const err = caught(() =>
      executeMove(
        setup(),
        MsgExecute.fromPartial({ ...update([1n, 2n]), args: [bcsU64(9n), bcsVector([]), bcsVector([])] }),
        'init',
        false,
      ),
    );
    expect({ code: err.code, codespace: err.codespace }).toEqual({ code: 1, codespace: 'undefined' });
    expect(err.message).toMatch(/^VM aborted: location=(01){32}::vip_score, code=65539$/);
  });

  it('finalizing stage u64::MAX overflows `stage + 1`', () => {
    const m = new MoveVipScore(P);
    m.addDeployer(P, P, true);
    m.setInitStage(P, MAX, true);
    expect(() => m.finalize(P, MAX, true)).toThrow(new MoveArithmeticError('Addition overflow'));
    expect(m.stages.get(MAX)?.isFinalized).toBe(false);
  });
});

describe('u64 in the Wasm model (vip-score-wasm: plain u64, serde-json-wasm decoding)', () => {
  const setup = () => {
    const state: WasmState = { codes: new Map(), contracts: new Map(), nextCodeId: 2n, instances: 1n };
    const model = new WasmVipScore({ allow_list: ['init1owner'], init_stage: 1n });
    state.contracts.set('init1contract', { codeId: 1n, admin: '', label: 'vip', model });
    return { state, model };
  };
  const exec = (state: WasmState, json: string) =>
    executeContract(
      state,
      MsgExecuteContract.fromPartial({
        sender: 'init1owner',
        contract: 'init1contract',
        msg: Buffer.from(json),
      }),
      true,
    );

  it('an amount past u64::MAX or below 0 is refused by the JSON decoder: ParseErr, nothing stored', () => {
    const { state, model } = setup();
    for (const amount of [`${MAX + 1n}`, '-1']) {
      const err = caught(() =>
        exec(state, `{"update_scores":{"stage":1,"scores":[["init1a",1],["init1b",${amount}]]}}`),
      );
      expect({ code: err.code, codespace: err.codespace }).toEqual({ code: 5, codespace: 'wasm' });
      expect(err.message).toBe(
        'Error parsing into type vip_score::msgs::ExecuteMsg: Invalid number.: execute wasm contract failed',
      );
    }
    const quoted = caught(() => exec(state, '{"update_score":{"stage":1,"addr":"init1a","amount":"5"}}'));
    expect(quoted.message).toBe(
      'Error parsing into type vip_score::msgs::ExecuteMsg: Invalid type: execute wasm contract failed',
    );
    expect(model.scores.size).toBe(0);
    expect(model.stages.get(1n)?.totalScore).toBe(0n);
  });

  it('message decoding comes first: an unknown variant fails as ParseErr even for a non-member', () => {
    const { state } = setup();
    const msg = MsgExecuteContract.fromPartial({
      sender: 'init1stranger',
      contract: 'init1contract',
      msg: Buffer.from('{"prepare_stage":{"stage":2}}'),
    });
    const err = caught(() => executeContract(state, msg, false));
    expect(err.message).toMatch(
      /^Error parsing into type vip_score::msgs::ExecuteMsg: unknown variant `prepare_stage`, expected one of `update_scores`, .*: execute wasm contract failed$/,
    );
  });

  it('a stage total past u64::MAX wraps and the tx succeeds, as the `as u64` cast does on chain', () => {
    const { state, model } = setup();
    const out = exec(state, `{"update_scores":{"stage":1,"scores":[["init1a",${MAX}],["init1b",3]]}}`);
    const totals = out.events
      .filter((e) => e.type === 'wasm-update-score')
      .map((e) => e.attributes.find((a) => a.key === 'total_score')?.value);
    expect(totals).toEqual([String(MAX), '2']);
    expect(model.stages.get(1n)?.totalScore).toBe(2n);
    // Lowering a score brings the wrapped total back below zero, i.e. to the top of the range.
    exec(state, '{"update_score":{"stage":1,"addr":"init1b","amount":0}}');
    expect(model.stages.get(1n)?.totalScore).toBe(MAX);
  });
});
