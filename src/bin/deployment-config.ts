import {
  loadApiDatabaseOptions,
  loadApiSettings,
  loadEdgeLimits,
  type ApiDatabaseOptions,
  type ApiFlags,
  type ApiSettings,
} from '../api/options.js';
import type { LogFormat } from '../shared/logger.js';
import { loadChainsFile, type ChainEntry } from '../shared/chains-file.js';
import {
  deepFreeze,
  loadIngestOptions,
  loadLogOptions,
  parseEnv,
  type Env,
  type IngestOptions,
  type LogLevel,
} from '../shared/config.js';
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
  const defaultChainId = loadDefaultChainId(env, entries, file);
  const chains = entries.map((entry) => {
    const ingest = loadIngestOptions(chainEnv(env, entry), flags);
    // A chain on its own server reads that server (the file names no replica of a shard).
    const apiEnv = entry.databaseUrl ? { ...env, DATABASE_READ_URL: undefined } : env;
    return serveApi ? { ingest, api: servedApiConfig(apiEnv, ingest) } : { ingest };
  });
  return deepFreeze({
    file,
    chains,
    defaultChainId,
    process: chains[0]!.ingest,
    edge: loadEdgeLimits(env),
  });
}

/**
 * One chain's settings from the chains file, for a command run on that chain alone beside the
 * deployment (`verify`, `reindex` with `--chain`, docs/chains.md §6): exactly what `start` runs
 * it with.
 */
export function loadChainIngestOptions(env: Env, flags: Env, chainId: string): Readonly<IngestOptions> {
  const file = env.CHAINS_FILE!.trim();
  refuseSingleChainSettings(env, flags);
  const entry = loadChainsFile(file).find((c) => c.chainId === chainId);
  if (!entry) throw new InputError('invalid_option', `--chain ${chainId}: not a chain of ${file}`);
  return loadIngestOptions(chainEnv(env, entry), flags);
}

function loadDefaultChainId(env: Env, entries: readonly ChainEntry[], file: string): string | undefined {
  const { DEFAULT_CHAIN_ID: id } = parseEnv(z.object({ DEFAULT_CHAIN_ID: z.string().min(1).optional() }), {
    DEFAULT_CHAIN_ID: env.DEFAULT_CHAIN_ID || undefined,
  });
  if (id !== undefined && !entries.some((c) => c.chainId === id))
    throw new InputError('invalid_config', `DEFAULT_CHAIN_ID "${id}" is not a chain of ${file}`);
  return id;
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
  };
}

/** `api` with a chains file: every chain's read database, and the API settings all chains share. */
export interface DeploymentApiConfig {
  file: string;
  chains: ReadonlyArray<{ chainId: string; database: ApiDatabaseOptions }>;
  defaultChainId: string | undefined;
  settings: Readonly<ApiSettings>;
  /** A replica has a commit only once it replayed it: the chains' APIs then poll their checkpoints. */
  readsReplica: boolean;
  edge: HttpEdgeLimits;
  logLevel: LogLevel;
  logFormat: LogFormat;
}

export function loadDeploymentApiConfig(
  env: Env,
  flags: ApiFlags,
): Readonly<DeploymentApiConfig> | undefined {
  const file = env.CHAINS_FILE?.trim();
  if (!file) return undefined;
  if (flags.chainId !== undefined || flags.vmType !== undefined)
    throw new InputError(
      'invalid_config',
      '--chain-id and --vm-type describe one chain: CHAINS_FILE lists the chains',
    );
  refuseSingleChainSettings(env, {});
  const entries = loadChainsFile(file);
  const defaultChainId = loadDefaultChainId(env, entries, file);
  const shared = loadApiDatabaseOptions(env);
  return deepFreeze({
    file,
    chains: entries.map((chain) => ({
      chainId: chain.chainId,
      // A chain on its own server reads it (its primary: the file names no replica of a shard).
      database: chain.databaseUrl
        ? { ...shared, target: { kind: 'postgres' as const, url: chain.databaseUrl } }
        : shared,
    })),
    defaultChainId,
    settings: loadApiSettings(env, flags),
    readsReplica: Boolean(env.DATABASE_READ_URL),
    edge: loadEdgeLimits(env),
    ...loadLogOptions(env),
  });
}
