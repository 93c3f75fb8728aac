import { describe, expect, it } from 'vitest';
import { loadApiOptions } from './options.js';

describe('loadApiOptions', () => {
  it('reads env with defaults, flags override, chain_meta fills the chain', () => {
    const o = loadApiOptions(
      { CORS_ALLOW_ORIGINS: ' A.io ,*.B.io', PORT: '9000' },
      { port: '9100' },
      {
        chainId: 'move-1',
        vmType: 'move',
      },
    );
    expect(o).toMatchObject({
      port: 9100,
      chainId: 'move-1',
      vmType: 'move',
      accountPrefix: 'init',
      cache: true,
    });
    expect(o.cors.allowOrigins).toEqual(['a.io', '*.b.io']);
    expect(o.cors.allowHeaders).toBe('Origin,Content-Type,Accept,Authorization,X-Requested-With');
    expect(o.countTimeoutMs).toBe(5000);
    expect(loadApiOptions({ CHAIN_ID: 'x', VM_TYPE: 'evm' }, { cache: false }).cache).toBe(false);
  });
  it('names the bad variable', () => {
    expect(() => loadApiOptions({ CHAIN_ID: 'x', VM_TYPE: 'cosmos' })).toThrow(/VM_TYPE/);
    expect(() => loadApiOptions({ CHAIN_ID: 'x', VM_TYPE: 'evm', PORT: 'http' })).toThrow(/PORT/);
    expect(() => loadApiOptions({ VM_TYPE: 'evm' })).toThrow(/CHAIN_ID is required/);
    expect(() => loadApiOptions({ CHAIN_ID: 'x', VM_TYPE: 'evm', CORS_ENABLED: 'yes' })).toThrow(
      /CORS_ENABLED/,
    );
  });
});
