import { describe, expect, it } from 'vitest';
import { defaultPoolSize, loadApiDatabaseOptions, loadApiOptions } from './options.js';

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
  it('serves internal txs on EVM unless INTERNAL_TX=false, and refuses it on other VMs', () => {
    const env = { CHAIN_ID: 'c-1' };
    expect(loadApiOptions({ ...env, VM_TYPE: 'evm' }).internalTx).toBe(true);
    expect(loadApiOptions({ ...env, VM_TYPE: 'evm', INTERNAL_TX: 'false' }).internalTx).toBe(false);
    expect(loadApiOptions({ ...env, VM_TYPE: 'wasm' }).internalTx).toBe(false);
    expect(() => loadApiOptions({ ...env, VM_TYPE: 'wasm', INTERNAL_TX: 'true' })).toThrow(
      'INTERNAL_TX=true needs an EVM rollup; this one runs wasm',
    );
  });

  it('sizes the row cache in MiB (128 by default, 0 = off)', () => {
    const env = { CHAIN_ID: 'x', VM_TYPE: 'move' };
    expect(loadApiOptions(env).rowCacheBytes).toBe(128 * 1024 * 1024);
    expect(loadApiOptions({ ...env, API_ROW_CACHE_MB: '0' }).rowCacheBytes).toBe(0);
    expect(loadApiOptions({ ...env, API_ROW_CACHE_MB: '512' }).rowCacheBytes).toBe(512 * 1024 * 1024);
    expect(() => loadApiOptions({ ...env, API_ROW_CACHE_MB: '1.5' })).toThrow(/API_ROW_CACHE_MB/);
    expect(() => loadApiOptions({ ...env, API_ROW_CACHE_MB: '100000' })).toThrow(/API_ROW_CACHE_MB/);
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

describe('loadApiOptions limits (issue 12)', () => {
  const base = { CHAIN_ID: 'x', VM_TYPE: 'move' };
  it('defaults: offsets capped at 10000, 16 KiB headers, protections off', () => {
    expect(loadApiOptions(base).limits).toEqual({
      maxOffset: 10_000,
      maxHeaderBytes: 16_384,
      maxBodyBytes: 65_536,
      requestTimeoutMs: 30_000,
      rateLimitPerSecond: 0,
      rateLimitBurst: 1,
      maxExpensiveQueries: 0,
    });
  });
  it('reads them from env; the burst defaults to twice the rate', () => {
    const limits = loadApiOptions({
      ...base,
      API_MAX_OFFSET: '500',
      API_RATE_LIMIT: '20',
      API_MAX_EXPENSIVE_QUERIES: '4',
    }).limits;
    expect(limits).toMatchObject({
      maxOffset: 500,
      rateLimitPerSecond: 20,
      rateLimitBurst: 40,
      maxExpensiveQueries: 4,
    });
    expect(
      loadApiOptions({ ...base, API_RATE_LIMIT: '5', API_RATE_LIMIT_BURST: '7' }).limits.rateLimitBurst,
    ).toBe(7);
  });
  it('names a bad limit', () => {
    expect(() => loadApiOptions({ ...base, API_MAX_OFFSET: '-1' })).toThrow(/API_MAX_OFFSET/);
    expect(() => loadApiOptions({ ...base, API_MAX_HEADER_BYTES: '10' })).toThrow(/API_MAX_HEADER_BYTES/);
    expect(() => loadApiOptions({ ...base, API_RATE_LIMIT: 'lots' })).toThrow(/API_RATE_LIMIT/);
  });
});

describe('loadApiDatabaseOptions', () => {
  it('sizes the pool at two connections per core, 4 to 20, unless DB_MAX_CONNS says otherwise', () => {
    expect([1, 2, 3, 8, 10, 64].map((cores) => defaultPoolSize(cores))).toEqual([4, 4, 6, 16, 20, 20]);
    const url = 'postgres://u@h/d';
    expect(loadApiDatabaseOptions({ DATABASE_URL: url }).maxConnections).toBe(defaultPoolSize());
    expect(loadApiDatabaseOptions({ DATABASE_URL: url, DB_MAX_CONNS: '32' }).maxConnections).toBe(32);
    expect(() => loadApiDatabaseOptions({ DATABASE_URL: url, DB_MAX_CONNS: '0' })).toThrow(/DB_MAX_CONNS/);
  });
});
