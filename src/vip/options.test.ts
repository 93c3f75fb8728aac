import { describe, expect, it } from 'vitest';
import { loadVipOptions, parseStage } from './options.js';
import { VIP_OPTION_DEFAULTS } from './setup.js';

/** What commander hands over when only --vm is given: the flags with defaults, as text. */
const commanderDefaults = {
  gasAdjustment: '1.4',
  keyIndex: '0',
  keyType: 'eth_secp256k1',
  prefix: 'init',
  maxTxBytes: '1048576',
  confirmTimeoutMs: String(VIP_OPTION_DEFAULTS.confirmTimeoutMs),
  pollMs: String(VIP_OPTION_DEFAULTS.pollMs),
};

describe('loadVipOptions', () => {
  it('applies the defaults, flags over the variables, and leaves unset settings out', () => {
    const o = loadVipOptions(
      { ...commanderDefaults, vm: 'move', rest: 'http://flag:1317', maxTxGas: '900000' },
      { VIP_REST_URL: 'http://env:1317', VIP_CHAIN_ID: 'c-1', VIP_CONTRACT: '' },
    );
    expect(o).toEqual({
      ...VIP_OPTION_DEFAULTS,
      ledgerConfirm: false,
      vm: 'move',
      rest: 'http://flag:1317',
      chainId: 'c-1',
      maxTxGas: 900000n,
    });
    expect(Object.isFrozen(o)).toBe(true);
    expect(loadVipOptions({}, { VIP_VM: 'wasm' })).toMatchObject({
      vm: 'wasm',
      keyIndex: 0,
      gasAdjustment: 1.4,
    });
  });

  it('a missing or unknown VM is invalid_vm naming --vm', () => {
    expect(() => loadVipOptions({}, {})).toThrow(
      expect.objectContaining({ code: 'invalid_vm', message: '--vm evm|move|wasm is required' }),
    );
    expect(() => loadVipOptions({}, { VIP_VM: 'cosmos' })).toThrow(/--vm/);
  });

  it('names each bad flag, every one at once', () => {
    const bad = { vm: 'evm', keyIndex: 'one', gasAdjustment: '0', maxBatch: '0', pollMs: '-5' };
    expect(() => loadVipOptions(bad, {})).toThrow(
      expect.objectContaining({
        code: 'invalid_option',
        message:
          '--gas-adjustment expects a positive number, got "0"; --key-index expects a whole number, got "one"; ' +
          '--max-batch expects a positive number, got "0"; --poll-ms expects a whole number, got "-5"',
      }),
    );
    expect(() => loadVipOptions({ vm: 'move', maxTxBytes: '1e6' }, {})).toThrow(
      '--max-tx-bytes expects a whole number, got "1e6"',
    );
  });

  it('endpoints must be http(s) URLs, naming the flag and its variable', () => {
    expect(() => loadVipOptions({ vm: 'move' }, { VIP_REST_URL: 'localhost:1317' })).toThrow(
      '--rest (or VIP_REST_URL) must be an http(s) URL, got "localhost:1317"',
    );
    expect(() => loadVipOptions({ vm: 'evm', jsonRpc: 'ws://x' }, {})).toThrow(
      /--json-rpc \(or JSON_RPC_URL\)/,
    );
    expect(() => loadVipOptions({ vm: 'evm', rpc: 'x' }, {})).toThrow(/--rpc \(or VIP_RPC_URL\)/);
  });
});

describe('parseStage', () => {
  it('takes 1..2^64-1 and names the flag otherwise', () => {
    expect(parseStage('7', '--stage')).toBe(7n);
    expect(parseStage(String((1n << 64n) - 1n), '--through')).toBe((1n << 64n) - 1n);
    for (const bad of ['0', '-1', '1.5', String(1n << 64n), undefined]) {
      expect(() => parseStage(bad, '--init-stage')).toThrow(
        expect.objectContaining({
          code: 'invalid_stage',
          message: expect.stringMatching(/^--init-stage must be/) as string,
        }),
      );
    }
  });
});
