import { loadEdgeLimits } from '../api/options.js';
import { loadChainsFile, type ChainEntry } from '../shared/chains-file.js';
import { deepFreeze, loadIngestOptions, parseEnv, type Env, type IngestOptions } from '../shared/config.js';
import { InputError } from '../shared/errors.js';
import { z } from 'zod';
import { servedApiConfig, type HttpEdgeLimits, type ServedApiConfig } from './process-config.js';

/**
 * A deployment of several rollups (docs/chains.md §1): CHAINS_FILE lists the chains; every other
 * setting (ports, database, limits) stays a variable shared by all of them.
 */
export interface DeploymentConfig {
  file: string;
  chains: readonly DeployedChainConfig[];
  /** The chain the root single-chain routes serve when there are several (DEFAULT_CHAIN_ID). */
  defaultChainId: string | undefined;
  /** Port, host, log settings: the deployment's, as a single chain's would be. */
  process: Readonly<IngestOptions>;
  edge: HttpEdgeLimits;
}

export interface DeployedChainConfig {
  ingest: Readonly<IngestOptions>;
  /** Absent for `indexer`. */
  api?: ServedApiConfig;
}

/** Variables (and their flags) that describe one chain: the chains file says them per chain instead. */
const SINGLE_CHAIN_SETTINGS: Record<string, string> = {
  RPC_URL: '--rpc-url',
  REST_URL: '--rest-url',
  JSON_RPC_URL: '--json-rpc-url',
  CHAIN_ID: '--chain-id',
  VM_TYPE: '--vm',
  START_HEIGHT: '--start-height',
};

/** The deployment, or undefined when CHAINS_FILE is not set (the single-chain variables apply). */
export function loadDeploymentConfig(
  env: Env,
  flags: Env,
  { serveApi }: { serveApi: boolean },
): Readonly<DeploymentConfig> | undefined {
  const file = env.CHAINS_FILE?.trim();
  if (!file) return undefined;
  refuseSingleChainSettings(env, flags);
  const entries = loadChainsFile(file);
  const { DEFAULT_CHAIN_ID: defaultChainId } = parseEnv(
    z.object({ DEFAULT_CHAIN_ID: z.string().min(1).optional() }),
    { DEFAULT_CHAIN_ID: env.DEFAULT_CHAIN_ID || undefined },
  );
  if (defaultChainId !== undefined && !entries.some((c) => c.chainId === defaultChainId))
    throw new InputError('invalid_config', `DEFAULT_CHAIN_ID "${defaultChainId}" is not a chain of ${file}`);
  const chains = entries.map((entry) => {
    const ingest = loadIngestOptions(chainEnv(env, entry), flags);
    return serveApi ? { ingest, api: servedApiConfig(env, ingest) } : { ingest };
  });
  return deepFreeze({
    file,
    chains,
    defaultChainId,
    process: chains[0]!.ingest,
    edge: loadEdgeLimits(env),
  });
}

function refuseSingleChainSettings(env: Env, flags: Env): void {
  for (const [name, flag] of Object.entries(SINGLE_CHAIN_SETTINGS)) {
    if (flags[name] !== undefined)
      throw new InputError(
        'invalid_config',
        `${flag} describes one chain: with CHAINS_FILE, set it per chain in the file`,
      );
    if (env[name])
      throw new InputError(
        'invalid_config',
        `${name} is set, but CHAINS_FILE lists the chains: set it per chain in the file, or unset CHAINS_FILE`,
      );
  }
}

/** One chain's variables: the deployment's, with the chain's own entries in place of the single-chain ones. */
function chainEnv(env: Env, chain: ChainEntry): Env {
  const stages = chain.stages;
  const has = (stage: string) => String(stages!.includes(stage as never));
  return {
    ...env,
    CHAIN_ID: chain.chainId,
    VM_TYPE: chain.vm,
    RPC_URL: chain.endpoints.rpc.join(','),
    REST_URL: chain.endpoints.rest.join(','),
    JSON_RPC_URL: chain.endpoints.jsonRpc.join(','),
    START_HEIGHT: chain.startHeight === undefined ? undefined : String(chain.startHeight),
    ...(chain.databaseUrl === undefined ? {} : { DATABASE_URL: chain.databaseUrl, DB_DSN: undefined }),
    ...(stages === undefined
      ? {}
      : { NFT_INDEXING: has('nft'), INTERNAL_TX: has('internal_tx'), RICH_LIST: has('rich_list') }),
    // Each chain would start its own prepare threads: with many chains they share the cores
    // through the event loop instead, unless PREPARE_WORKERS says otherwise (docs/chains.md §1).
    PREPARE_WORKERS: env.PREPARE_WORKERS ?? '0',
  };
}
