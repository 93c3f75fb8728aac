import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultPrepareWorkers } from '../shared/config.js';
import { loadDeploymentConfig } from './deployment-config.js';

/** CHAINS_FILE beside the deployment's variables (docs/chains.md §1). */
describe('the deployment config', () => {
  let dir: string;
  let file: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'ri-deploy-config-'));
    file = path.join(dir, 'chains.yaml');
    await writeFile(
      file,
      [
        'chains:',
        '  - chain_id: minimove-1',
        '    rpc: http://move-rpc.example',
        '    rest: http://move-rest.example',
        '    stages: [rich_list]',
        '  - chain_id: minievm-1',
        '    vm: evm',
        '    rpc: [http://evm-rpc-a.example, http://evm-rpc-b.example]',
        '    rest: http://evm-rest.example',
        '    json_rpc: http://evm-jsonrpc.example',
        '    database_url: postgres://indexer@shard-2:5432/evm',
        '    start_height: 7',
        '',
      ].join('\n'),
    );
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const load = (env: Record<string, string>, flags: Record<string, string> = {}, serveApi = true) =>
    loadDeploymentConfig({ CHAINS_FILE: file, ...env }, flags, { serveApi });
  const refusal = (run: () => unknown): { code?: string; message: string } => {
    try {
      run();
    } catch (err) {
      return err as { code?: string; message: string };
    }
    throw new Error('not refused');
  };

  it('is absent without CHAINS_FILE: the single-chain variables apply', () => {
    expect(
      loadDeploymentConfig({ RPC_URL: 'http://r', CHAIN_ID: 'x' }, {}, { serveApi: true }),
    ).toBeUndefined();
  });

  it('gives each chain its own endpoints, database, stages and start height', () => {
    const config = load({ DATA_DIR: '/var/lib/ri', PORT: '9000' })!;
    expect(config.file).toBe(file);
    expect(config.defaultChainId).toBeUndefined();
    const [move, evm] = config.chains.map((c) => c.ingest);
    expect(move).toMatchObject({
      chainId: 'minimove-1',
      endpoints: { rpc: ['http://move-rpc.example'], rest: ['http://move-rest.example'] },
      database: { kind: 'pglite', dataDir: '/var/lib/ri' },
      nftIndexing: false,
      richList: true,
    });
    expect(move!.vmType).toBeUndefined();
    expect(evm).toMatchObject({
      chainId: 'minievm-1',
      vmType: 'evm',
      endpoints: {
        rpc: ['http://evm-rpc-a.example', 'http://evm-rpc-b.example'],
        jsonRpc: ['http://evm-jsonrpc.example'],
      },
      database: { kind: 'postgres', url: 'postgres://indexer@shard-2:5432/evm' },
      startHeight: 7,
      nftIndexing: true,
    });
    expect(config.chains.every((c) => c.api !== undefined)).toBe(true);
    expect(config.process.port).toBe(9000);
    expect(load({ DATA_DIR: '/d' }, {}, false)!.chains.every((c) => c.api === undefined)).toBe(true);
  });

  it('sizes the one prepare pool of the deployment as a single chain’s threads', () => {
    expect(load({ DATA_DIR: '/d', PREPARE_WORKERS: '2' })!.process.prepareWorkers).toBe(2);
    expect(load({ DATA_DIR: '/d', PREPARE_WORKERS: '0' })!.process.prepareWorkers).toBe(0);
    expect(load({ DATA_DIR: '/d' })!.process.prepareWorkers).toBe(defaultPrepareWorkers());
  });

  it('takes DEFAULT_CHAIN_ID when it names a chain of the file, and refuses one that does not', () => {
    expect(load({ DATA_DIR: '/d', DEFAULT_CHAIN_ID: 'minievm-1' })!.defaultChainId).toBe('minievm-1');
    const err = refusal(() => load({ DATA_DIR: '/d', DEFAULT_CHAIN_ID: 'minimove-2' }));
    expect(err.code).toBe('invalid_config');
    expect(err.message).toBe(`DEFAULT_CHAIN_ID "minimove-2" is not a chain of ${file}`);
  });

  it.each(['RPC_URL', 'REST_URL', 'JSON_RPC_URL', 'CHAIN_ID', 'VM_TYPE', 'START_HEIGHT'])(
    'refuses %s beside the chains file, naming it',
    (name) => {
      const err = refusal(() => load({ DATA_DIR: '/d', [name]: 'http://x' }));
      expect(err.code).toBe('invalid_config');
      expect(err.message).toBe(
        `${name} is set, but CHAINS_FILE lists the chains: set it per chain in the file, or unset CHAINS_FILE`,
      );
    },
  );

  it('refuses a single-chain flag beside the chains file, naming the flag', () => {
    const err = refusal(() => load({ DATA_DIR: '/d' }, { RPC_URL: 'http://x' }));
    expect(err.message).toBe('--rpc-url describes one chain: with CHAINS_FILE, set it per chain in the file');
  });

  it('refuses a bad chains file naming its file, line and field', async () => {
    const bad = path.join(dir, 'bad.yaml');
    await writeFile(bad, 'chains:\n  - chain_id: e-1\n    vm: evm\n    rpc: http://r\n    rest: http://s\n');
    const err = refusal(() => loadDeploymentConfig({ CHAINS_FILE: bad }, {}, { serveApi: true }));
    expect(err.code).toBe('invalid_chains_file');
    expect(err.message).toBe(`${bad}:2: chains[0].json_rpc: is required on an EVM chain`);
  });
});
