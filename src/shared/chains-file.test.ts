import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadChainsFile, parseChainsFile, schemaNameOf } from './chains-file.js';

/** A chain entry's lines under `chains:` (YAML), endpoints given. */
const entry = (id: string, more = ''): string =>
  `  - chain_id: ${id}\n    rpc: http://rpc.example\n    rest: http://rest.example\n${more}`;

describe('the chains file (docs/chains.md §1)', () => {
  it('reads every key, from YAML and from JSON', () => {
    const yaml = [
      'chains:',
      entry('minimove-1'),
      '  - chain_id: minievm-1',
      '    vm: evm',
      '    rpc: [https://rpc-a.example/, https://rpc-b.example]',
      '    rest: https://rest.example',
      '    json_rpc: https://jsonrpc.example',
      '    database_url: postgres://indexer@shard-2:5432/evm',
      '    start_height: 1000',
      '    stages: [nft, internal_tx, nft]',
      '',
    ].join('\n');
    expect(parseChainsFile(yaml, 'chains.yaml')).toEqual([
      {
        chainId: 'minimove-1',
        vm: undefined,
        endpoints: { rpc: ['http://rpc.example'], rest: ['http://rest.example'], jsonRpc: [] },
        databaseUrl: undefined,
        startHeight: undefined,
        stages: undefined,
      },
      {
        chainId: 'minievm-1',
        vm: 'evm',
        endpoints: {
          rpc: ['https://rpc-a.example', 'https://rpc-b.example'],
          rest: ['https://rest.example'],
          jsonRpc: ['https://jsonrpc.example'],
        },
        databaseUrl: 'postgres://indexer@shard-2:5432/evm',
        startHeight: 1000,
        stages: ['nft', 'internal_tx'],
      },
    ]);
    const json = '{"chains":[{"chain_id":"a-1","rpc":"http://r","rest":["http://s"],"stages":[]}]}';
    expect(parseChainsFile(json, 'chains.json')[0]).toMatchObject({ chainId: 'a-1', stages: [] });
  });

  it.each([
    ['an unknown top key', 'chain:\n' + entry('a-1'), 'c.yaml:1: chain: unknown key (allowed: chains)'],
    ['no chain', 'chains: []\n', 'c.yaml:1: chains: needs at least one chain'],
    [
      'a missing chain id',
      'chains:\n  - rpc: http://r\n    rest: http://s\n',
      'c.yaml:2: chains[0].chain_id: is required',
    ],
    [
      'an unknown chain key',
      'chains:\n' + entry('a-1', '    rpcs: http://r\n'),
      'c.yaml:5: chains[0].rpcs: unknown key (allowed: chain_id, vm, rpc, rest, json_rpc, database_url, start_height, stages)',
    ],
    [
      'a bad chain id',
      'chains:\n' + entry('a/1'),
      'c.yaml:2: chains[0].chain_id: must be a chain id such as minievm-1',
    ],
    ['a bad VM', 'chains:\n' + entry('a-1', '    vm: cairo\n'), 'c.yaml:5: chains[0].vm:'],
    [
      'a bad URL in a list',
      'chains:\n  - chain_id: a-1\n    rpc: [http://r, ftp://x]\n    rest: http://s\n',
      'c.yaml:3: chains[0].rpc[1]: must be an http(s) URL',
    ],
    [
      'an EVM chain without json_rpc',
      'chains:\n' + entry('a-1') + entry('e-1', '    vm: evm\n'),
      'c.yaml:5: chains[1].json_rpc: is required on an EVM chain',
    ],
    [
      'a chain listed twice',
      'chains:\n' + entry('a-1') + entry('a-1'),
      'c.yaml:5: chains[1].chain_id: "a-1" is listed twice',
    ],
    [
      'two ids sharing a schema',
      'chains:\n' + entry('a-1') + entry('A_1'),
      'c.yaml:5: chains[1].chain_id: "A_1" is stored under the same name as "a-1"',
    ],
    [
      'a database URL that is not PostgreSQL',
      'chains:\n' + entry('a-1', '    database_url: mysql://x\n'),
      'c.yaml:5: chains[0].database_url: must be a postgres:// URL',
    ],
    [
      'a negative start height',
      'chains:\n' + entry('a-1', '    start_height: -3\n'),
      'c.yaml:5: chains[0].start_height: must be an integer ≥ 0',
    ],
    [
      'an unknown stage',
      'chains:\n' + entry('a-1', '    stages: [nft, blocks]\n'),
      'c.yaml:5: chains[0].stages[1]: must be one of nft, internal_tx, rich_list',
    ],
    [
      'internal_tx on a Move chain',
      'chains:\n' + entry('a-1', '    vm: move\n    stages: [nft, internal_tx]\n'),
      'c.yaml:6: chains[0].stages[1]: needs an EVM chain',
    ],
    ['a YAML syntax error', 'chains:\n  - chain_id: [a\n', 'c.yaml:3:'],
  ])('refuses %s naming the file, line and field', (_what, text, message) => {
    let caught: unknown;
    try {
      parseChainsFile(text, 'c.yaml');
    } catch (err) {
      caught = err;
    }
    expect(caught).toMatchObject({ code: 'invalid_chains_file' });
    expect((caught as Error).message.startsWith(message), (caught as Error).message).toBe(true);
  });

  it('names a file it cannot read', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'ri-chains-'));
    try {
      const file = path.join(dir, 'chains.yaml');
      expect(() => loadChainsFile(file)).toThrow(`CHAINS_FILE ${file} cannot be read`);
      await writeFile(file, 'chains:\n' + entry('a-1'));
      expect(loadChainsFile(file).map((c) => c.chainId)).toEqual(['a-1']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('names a chain’s schema after its id', () => {
    expect(schemaNameOf('minievm-1')).toBe('chain_minievm_1');
    expect(schemaNameOf('Init.Test_2')).toBe('chain_init_test_2');
  });
});
