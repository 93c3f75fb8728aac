import { describe, expect, it } from 'vitest';
import { loadIngestOptions, redactUrl } from './config.js';

const base = { RPC_URL: 'http://127.0.0.1:26657', REST_URL: 'http://127.0.0.1:1317' };

describe('loadIngestOptions', () => {
  it('applies defaults, lists and flag precedence', () => {
    const o = loadIngestOptions(
      { ...base, RPC_URL: 'http://a:1/, http://b:2', DB_DSN: 'postgres://u@h/db', PORT: '9000' },
      { PORT: '9100', VM_TYPE: 'wasm' },
    );
    expect(o.endpoints.rpc).toEqual(['http://a:1', 'http://b:2']);
    expect(o.database).toEqual({ kind: 'postgres', url: 'postgres://u@h/db' });
    expect(o.port).toBe(9100);
    expect(o.vmType).toBe('wasm');
    expect(o.accountPrefix).toBe('init');
    expect(loadIngestOptions(base).database).toEqual({ kind: 'pglite', dataDir: './data' });
  });

  it('reads the stage switches; INTERNAL_TX=true on a Move or Wasm chain is one line naming it', () => {
    expect(loadIngestOptions(base)).toMatchObject({ internalTx: undefined, richList: true });
    expect(loadIngestOptions({ ...base, INTERNAL_TX: 'false', RICH_LIST: 'false' })).toMatchObject({
      internalTx: false,
      richList: false,
    });
    expect(() => loadIngestOptions({ ...base, VM_TYPE: 'move', INTERNAL_TX: 'true' })).toThrow(
      'INTERNAL_TX=true needs an EVM rollup; this one runs move',
    );
    expect(() => loadIngestOptions({ ...base, RICH_LIST: 'yes' })).toThrow('RICH_LIST must be true or false');
  });

  it('reads the commit-size cap, unset by default', () => {
    expect(loadIngestOptions(base).maxBlocksPerCommit).toBeUndefined();
    expect(loadIngestOptions({ ...base, MAX_BLOCKS_PER_COMMIT: '50' }).maxBlocksPerCommit).toBe(50);
    expect(() => loadIngestOptions({ ...base, MAX_BLOCKS_PER_COMMIT: '0' })).toThrow(
      /MAX_BLOCKS_PER_COMMIT must be an integer in 1..10000/,
    );
  });

  it('reports every bad variable by name', () => {
    expect(() => loadIngestOptions({ ...base, VM_TYPE: 'solana', MAX_CONCURRENT_REQUESTS: '0' })).toThrow(
      /VM_TYPE.*move, wasm, evm.*MAX_CONCURRENT_REQUESTS must be an integer in 1..1000/s,
    );
    expect(() => loadIngestOptions({ REST_URL: base.REST_URL })).toThrow(/RPC_URL is required/);
    expect(() => loadIngestOptions({ ...base, VM_TYPE: 'evm' })).toThrow(/JSON_RPC_URL is required/);
    expect(() => loadIngestOptions({ ...base, RPC_URL: 'ftp://x' })).toThrow(/RPC_URL must be http/);
    expect(() => loadIngestOptions({ ...base, DATABASE_URL: 'mysql://x' })).toThrow(/postgres/);
  });

  it('never echoes credentials', () => {
    expect(redactUrl('postgres://user:secret@db:5432/x')).not.toContain('secret');
    expect(() => loadIngestOptions({ ...base, REST_URL: 'ftp://user:secret@x' })).toThrow(/^(?!.*secret)/s);
  });
});
