import { describe, expect, it } from 'vitest';
import { loadSimOptions, SIM_DEFAULTS } from './options.js';

describe('loadSimOptions', () => {
  it('applies the defaults and leaves unset settings out', () => {
    expect(loadSimOptions({ vm: 'evm' })).toEqual({
      ...SIM_DEFAULTS,
      vm: 'evm',
      live: false,
      fastSignatures: false,
      vip: false,
    });
    const o = loadSimOptions({
      vm: 'move',
      head: '20',
      rpcPort: '0',
      nftShare: '0.5',
      live: true,
      vip: true,
      lowestHeight: '7',
      keepBlocks: '5',
      lagBlocks: '3',
      keyringSeed: '7',
    });
    expect(o).toMatchObject({ head: 20, rpcPort: 0, nftShare: 0.5, live: true, vip: true });
    expect(o).toMatchObject({ lowestHeight: 7, keepBlocks: 5, lagBlocks: 3, keyringSeed: 7 });
    expect(Object.isFrozen(o)).toBe(true);
  });

  it('turns --upgrade-height and --upgrade-every into one upgrade option', () => {
    expect(loadSimOptions({ vm: 'move', upgradeHeight: '10' }).upgrade).toEqual({ height: 10 });
    expect(loadSimOptions({ vm: 'move', upgradeHeight: '10', upgradeEvery: '2' }).upgrade).toEqual({
      height: 10,
      every: 2,
    });
    expect(loadSimOptions({ vm: 'move' })).not.toHaveProperty('upgrade');
    expect(() => loadSimOptions({ vm: 'move', upgradeEvery: '2' })).toThrow(
      '--upgrade-every needs --upgrade-height',
    );
    expect(() => loadSimOptions({ vm: 'move', upgradeHeight: '0', upgradeEvery: '0' })).toThrow(
      expect.objectContaining({
        code: 'invalid_option',
        message: '--upgrade-height must be at least 1, got "0"; --upgrade-every must be at least 1, got "0"',
      }),
    );
  });

  it('a bad --vm is invalid_vm naming the flag', () => {
    expect(() => loadSimOptions({ vm: 'cosmos' })).toThrow(
      expect.objectContaining({
        code: 'invalid_vm',
        message: '--vm must be move, wasm or evm, got "cosmos"',
      }),
    );
  });

  it('names every bad flag at once', () => {
    expect(() => loadSimOptions({ vm: 'wasm', seed: 'x', rpcPort: '-1', nftShare: '2' })).toThrow(
      expect.objectContaining({
        code: 'invalid_option',
        message:
          '--seed must be a non-negative integer, got "x"; --rpc-port must be a non-negative integer, got "-1"; ' +
          '--nft-share must be a number in (0, 1], got "2"',
      }),
    );
  });
});
