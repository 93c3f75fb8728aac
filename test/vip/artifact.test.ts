import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { toEventSelector, toFunctionSelector } from 'viem';
import type { AbiEvent, AbiFunction } from 'viem';

interface AbiError {
  type: 'error';
  name: string;
  inputs: { type: string }[];
}
import { compileVipScore } from '../../src/vip/evm/compile.js';

const artifactPath = path.resolve('contracts', 'VipScore.json');

describe('contracts/VipScore.json', () => {
  it('equals a fresh solc compile of contracts/VipScore.sol', async () => {
    const committed = JSON.parse(await readFile(artifactPath, 'utf8')) as unknown;
    const fresh = await compileVipScore(path.resolve('contracts', 'VipScore.sol'));
    expect(JSON.parse(JSON.stringify(fresh))).toEqual(committed);
  });

  it('has exactly the selectors, errors and events of the Initia ABI (docs/vip-contracts.md §1.1)', async () => {
    const { abi } = JSON.parse(await readFile(artifactPath, 'utf8')) as {
      abi: (AbiFunction | AbiEvent | AbiError | { type: 'constructor'; inputs: { type: string }[] })[];
    };
    const fns = abi.filter((x): x is AbiFunction => x.type === 'function').map((f) => toFunctionSelector(f));
    expect(fns.sort()).toEqual(
      [
        '0x45a2b96b',
        '0xd3f942c3',
        '0xdab73a86',
        '0x3482ec7f',
        '0x17abbd50',
        '0x9da21167',
        '0xca480c30',
        '0xe1097249',
        '0x977e9404',
        '0x5466d83d',
        '0x2848aeaf',
        '0x990357e5',
      ].sort(),
    );
    const errors = abi
      .filter((x): x is AbiError => x.type === 'error')
      .map((e) => toFunctionSelector(`${e.name}(${e.inputs.map((i) => i.type).join(',')})`));
    expect(errors.sort()).toEqual(
      ['0x17f323f3', '0x10310b19', '0x7105075e', '0x6271a685', '0x5699f3ef'].sort(),
    );
    const events = abi.filter((x): x is AbiEvent => x.type === 'event').map((e) => toEventSelector(e));
    expect(events.sort()).toEqual(
      [
        '0xa3b29f5280040d753fd51383140f1a15f5740432a66e6e0543e99119f3c4522e',
        '0xcadfe6a64e10152f3376a443fde9c4663759d6f8e9afc95be75d74cbe5e25f9c',
        '0xaa223ecc7f67d3014d35d9d5e419dd09b7e4b2ae2d427d33b1995b38ecfefe8d',
      ].sort(),
    );
    const ctor = abi.find((x) => x.type === 'constructor');
    expect(ctor?.inputs.map((i) => i.type)).toEqual(['uint64']);
    const getScores = abi.find((x): x is AbiFunction => x.type === 'function' && x.name === 'getScores');
    expect(getScores?.outputs[0]?.type).toBe('tuple[]');
  });
});
