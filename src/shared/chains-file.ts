import { readFileSync } from 'node:fs';
import { isSeq } from 'yaml';
import { InputError } from './errors.js';
import type { NodeEndpoints, VmType } from './config.js';
import { YamlFileReader, type FieldPath } from './yaml-file.js';

/**
 * The chains file (docs/chains.md §1): the rollups one deployment indexes. YAML or JSON; every
 * problem names the file, the line and the field, and stops the process before anything starts.
 */

/** Stages a chain may list; absent = as a single-chain deployment with no variables set. */
export const CHAIN_STAGES = ['nft', 'internal_tx', 'rich_list'] as const;
export type ChainStage = (typeof CHAIN_STAGES)[number];

export interface ChainEntry {
  chainId: string;
  /** The VM, when the operator states it (else discovered from the node, as CHAIN_ID/VM_TYPE). */
  vm: VmType | undefined;
  endpoints: NodeEndpoints;
  /** The chain's own PostgreSQL server or database (its shard); else the deployment's database. */
  databaseUrl: string | undefined;
  startHeight: number | undefined;
  stages: readonly ChainStage[] | undefined;
}

const TOP_KEYS = ['chains'];
const CHAIN_KEYS = ['chain_id', 'vm', 'rpc', 'rest', 'json_rpc', 'database_url', 'start_height', 'stages'];
/** Cosmos chain ids: letters, digits, `.`, `_` and `-` (e.g. `minievm-1`, `initiation-2`). */
const CHAIN_ID_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const URL_RE = /^https?:\/\/\S+$/;

export function loadChainsFile(path: string): ChainEntry[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new InputError(
      'invalid_chains_file',
      `CHAINS_FILE ${path} cannot be read (${(err as Error).message})`,
    );
  }
  return parseChainsFile(text, path);
}

export function parseChainsFile(text: string, file: string): ChainEntry[] {
  const r: YamlFileReader = YamlFileReader.parse(text, file, 'invalid_chains_file');
  r.keys([], TOP_KEYS);
  const count = r.seqLength(['chains'], 'chains');
  if (count === 0) r.fail(['chains'], 'needs at least one chain');
  const chains: ChainEntry[] = [];
  for (let i = 0; i < count; i++) {
    const chain = readChain(r, ['chains', i]);
    const twin = chains.find((c) => schemaNameOf(c.chainId) === schemaNameOf(chain.chainId));
    if (twin) {
      const why =
        twin.chainId === chain.chainId ? 'listed twice' : `stored under the same name as "${twin.chainId}"`;
      r.fail(['chains', i, 'chain_id'], `"${chain.chainId}" is ${why}`);
    }
    chains.push(chain);
  }
  return chains;
}

function readChain(r: YamlFileReader, at: FieldPath): ChainEntry {
  const present = r.keys(at, CHAIN_KEYS);
  for (const key of ['chain_id', 'rpc', 'rest']) {
    if (!present.includes(key)) r.fail([...at, key], 'is required');
  }
  const chainId = r.string([...at, 'chain_id'], 'a chain id');
  if (!CHAIN_ID_RE.test(chainId)) r.fail([...at, 'chain_id'], 'must be a chain id such as minievm-1');
  const vm = r.optionalString([...at, 'vm'], /^(move|wasm|evm)$/, 'move, wasm or evm') as VmType | undefined;
  const urls = (key: string): string[] =>
    present.includes(key)
      ? r.stringList([...at, key], 'an http(s) URL').map((url, i) => {
          if (!URL_RE.test(url))
            r.fail(isSeq(r.node([...at, key])) ? [...at, key, i] : [...at, key], 'must be an http(s) URL');
          return url.replace(/\/+$/, '');
        })
      : [];
  const endpoints = { rpc: urls('rpc'), rest: urls('rest'), jsonRpc: urls('json_rpc') };
  if (vm === 'evm' && endpoints.jsonRpc.length === 0)
    r.fail([...at, 'json_rpc'], 'is required on an EVM chain');
  const databaseUrl = r.optionalString(
    [...at, 'database_url'],
    /^postgres(ql)?:\/\/\S+$/,
    'a postgres:// URL',
  );
  return {
    chainId,
    vm,
    endpoints,
    databaseUrl,
    startHeight: readStartHeight(r, [...at, 'start_height']),
    stages: readStages(r, [...at, 'stages'], vm),
  };
}

function readStartHeight(r: YamlFileReader, at: FieldPath): number | undefined {
  if (r.node(at) === undefined) return undefined;
  const n = Number(r.text(at, 'an integer ≥ 0'));
  if (!Number.isSafeInteger(n) || n < 0) r.fail(at, 'must be an integer ≥ 0');
  return n;
}

function readStages(r: YamlFileReader, at: FieldPath, vm: VmType | undefined): ChainStage[] | undefined {
  if (r.node(at) === undefined) return undefined;
  const stages: ChainStage[] = [];
  const n = r.seqLength(at, `stages (${CHAIN_STAGES.join(', ')})`);
  for (let i = 0; i < n; i++) {
    const stage = r.string([...at, i], 'a stage name') as ChainStage;
    if (!CHAIN_STAGES.includes(stage)) r.fail([...at, i], `must be one of ${CHAIN_STAGES.join(', ')}`);
    if (stage === 'internal_tx' && vm !== undefined && vm !== 'evm') r.fail([...at, i], 'needs an EVM chain');
    if (!stages.includes(stage)) stages.push(stage);
  }
  return stages;
}

/**
 * The PostgreSQL schema a chain's rows live in when the chain did not bring them from a
 * single-chain database (docs/chains.md §3): `chain_` and the id, lower-cased, each character
 * PostgreSQL would need quoted replaced by `_`.
 */
export function schemaNameOf(chainId: string): string {
  return `chain_${chainId.toLowerCase().replace(/[^a-z0-9_]/g, '_')}`;
}
