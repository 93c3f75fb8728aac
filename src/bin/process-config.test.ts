import { describe, expect, it } from 'vitest';
import {
  loadApiProcessConfig,
  loadDemoConfig,
  loadIndexerConfig,
  loadMigrateConfig,
  loadStartConfig,
} from './process-config.js';

const NODE = { RPC_URL: 'http://127.0.0.1:26657', REST_URL: 'http://127.0.0.1:1317' };

describe('start / indexer config', () => {
  it("start: the API takes the ingest port and host, and reads ingest's own database", () => {
    const config = loadStartConfig(
      { ...NODE, DATABASE_URL: 'postgres://u@db/x', PORT: '9000', API_CACHE: 'false' },
      { HOST: '127.0.0.1' },
    );
    expect(config.api?.settings).toMatchObject({ port: 9000, host: '127.0.0.1', cache: false });
    expect(config.api?.database.target).toEqual({ kind: 'postgres', url: 'postgres://u@db/x' });
    expect(config.api?.readsReplica).toBe(false);
    expect(Object.isFrozen(config.api?.settings.limits)).toBe(true);
    expect(Object.isFrozen(config.ingest.endpoints.rpc)).toBe(true);
  });

  it('start: a --database-url flag wins over DATABASE_URL for the API too; a replica comes first', () => {
    const flags = { DATABASE_URL: 'postgres://u@flag/x' };
    const env = { ...NODE, DATABASE_URL: 'postgres://u@env/x' };
    expect(loadStartConfig(env, flags).api?.database.target).toMatchObject({ url: 'postgres://u@flag/x' });
    const replica = loadStartConfig({ ...env, DATABASE_READ_URL: 'postgres://u@replica/x' }, flags).api;
    expect(replica).toMatchObject({
      readsReplica: true,
      database: { target: { url: 'postgres://u@replica/x' } },
    });
  });

  it('start: a bad API variable stops it at once, naming the variable', () => {
    expect(() => loadStartConfig({ ...NODE, CORS_MAX_AGE: 'soon' }, {})).toThrow(/CORS_MAX_AGE/);
    expect(() => loadStartConfig({ ...NODE, DATABASE_READ_URL: 'mysql://x' }, {})).toThrow(
      'DATABASE_READ_URL / DATABASE_URL must be a postgres:// or postgresql:// URL',
    );
    expect(() => loadStartConfig({ ...NODE, API_MAX_HEADER_BYTES: '10' }, {})).toThrow(
      /API_MAX_HEADER_BYTES/,
    );
  });

  it('indexer: no API, but the edge limits of its port are checked', () => {
    const config = loadIndexerConfig({ ...NODE, API_REQUEST_TIMEOUT_MS: '5000' }, {});
    expect(config.api).toBeUndefined();
    expect(config.edge.requestTimeoutMs).toBe(5000);
    expect(() => loadIndexerConfig({ ...NODE, API_REQUEST_TIMEOUT_MS: 'x' }, {})).toThrow(
      /API_REQUEST_TIMEOUT_MS/,
    );
  });
});

describe('api config', () => {
  it('reads log settings, flags over env, and knows a replica', () => {
    const config = loadApiProcessConfig(
      { LOG_LEVEL: 'warn', LOG_FORMAT: 'json', PORT: '1', DATABASE_READ_URL: 'postgres://r/x' },
      { port: '2', cache: false },
    );
    expect(config).toMatchObject({ logLevel: 'warn', logFormat: 'json', readsReplica: true });
    expect(config.settings).toMatchObject({ port: 2, cache: false, chainId: undefined });
  });

  it('names a bad LOG_LEVEL and a bad --vm-type before anything opens', () => {
    expect(() => loadApiProcessConfig({ LOG_LEVEL: 'loud' }, {})).toThrow(/LOG_LEVEL must be one of/);
    expect(() => loadApiProcessConfig({}, { vmType: 'cosmos' })).toThrow(/VM_TYPE/);
  });
});

describe('migrate config', () => {
  it('flags over env; printing the SQL needs nothing else', () => {
    expect(loadMigrateConfig({ DATABASE_URL: 'postgres://e/x' }, { to: '0003_x.sql' })).toEqual({
      kind: 'migrate',
      database: { kind: 'postgres', url: 'postgres://e/x' },
      upTo: '0003_x.sql',
      readonlyRole: undefined,
    });
    expect(loadMigrateConfig({}, { printReadonlySql: 'reader', createReadonlyRole: 'r' })).toMatchObject({
      kind: 'print-readonly-sql',
      role: 'reader',
    });
  });

  it('the read-only role: needs PostgreSQL, and a password variable that is set', () => {
    expect(() => loadMigrateConfig({}, { createReadonlyRole: 'r' })).toThrow(
      '--create-readonly-role needs a PostgreSQL DATABASE_URL',
    );
    const pg = { DATABASE_URL: 'postgres://e/x' };
    expect(() =>
      loadMigrateConfig(pg, { createReadonlyRole: 'r', readonlyPasswordEnv: 'RO_PASSWORD' }),
    ).toThrow('environment variable RO_PASSWORD is empty or unset');
    expect(
      loadMigrateConfig(
        { ...pg, RO_PASSWORD: 'pw' },
        { createReadonlyRole: 'r', readonlyPasswordEnv: 'RO_PASSWORD' },
      ),
    ).toMatchObject({ readonlyRole: { name: 'r', password: 'pw' } });
    expect(() => loadMigrateConfig({}, { databaseUrl: 'mysql://x' })).toThrow(
      /DATABASE_URL must be a postgres/,
    );
  });
});

describe('demo config', () => {
  const flags = { vm: 'wasm', backlog: '600', blockTimeMs: '1000', rollups: '1' };
  it('PGlite in ./demo-data/<vm> on 127.0.0.1; the API takes nothing else from the environment', () => {
    const config = loadDemoConfig({ PORT: '9100', API_CACHE: 'false' }, flags);
    expect(config.demo).toEqual({
      vm: 'wasm',
      backlog: 600,
      blockTimeMs: 1000,
      dataDir: './demo-data/wasm',
      reset: false,
      rollups: 1,
      fastSignatures: false,
    });
    expect(loadDemoConfig({}, { ...flags, fastSignatures: true }).demo.fastSignatures).toBe(true);
    expect(config.ingest).toMatchObject({ port: 9100, host: '127.0.0.1', progress: true, vmType: 'wasm' });
    expect(config.api?.settings).toMatchObject({ port: 9100, cache: true });
  });

  it('names the bad flag', () => {
    expect(() => loadDemoConfig({}, { ...flags, vm: 'cosmos' })).toThrow(
      '--vm must be move, wasm or evm, got "cosmos"',
    );
    expect(() => loadDemoConfig({}, { ...flags, backlog: '0' })).toThrow(
      '--backlog must be an integer ≥ 1, got "0"',
    );
    expect(() => loadDemoConfig({}, { ...flags, blockTimeMs: '5' })).toThrow(/--block-time-ms must be/);
    expect(() => loadDemoConfig({}, { ...flags, port: '99999' })).toThrow(/PORT must be an integer/);
    expect(() => loadDemoConfig({}, { ...flags, rollups: '0' })).toThrow(
      '--rollups must be an integer ≥ 1, got "0"',
    );
    expect(() => loadDemoConfig({}, { ...flags, rollups: '40' })).toThrow('--rollups must be at most 12');
  });

  it('puts several rollups in ./demo-data/rollups-<n>', () => {
    expect(loadDemoConfig({}, { ...flags, rollups: '3' }).demo).toMatchObject({
      rollups: 3,
      dataDir: './demo-data/rollups-3',
    });
  });
});
