import { availableParallelism } from 'node:os';
import { z } from 'zod';
import {
  checkInternalTx,
  databaseTarget,
  parseEnv,
  type DatabaseTarget,
  type Env,
  type VmType,
} from '../shared/config.js';
import { InputError } from '../shared/errors.js';
import { packageVersion } from '../shared/version.js';

export type { VmType } from '../shared/config.js';

/** CORS settings of docs/api.md §1.3; defaults per docs/api.md §0.9 (on, `*`, read-only methods). */
export interface CorsOptions {
  enabled: boolean;
  /** Trimmed, lower-cased; `*` or `*.example.com` patterns allowed. */
  allowOrigins: string[];
  allowMethods: string;
  allowHeaders: string;
  allowCredentials: boolean;
  exposeHeaders: string;
  /** Seconds; 0 sends no Access-Control-Max-Age. */
  maxAge: number;
}

export interface ApiOptions {
  port: number;
  host: string;
  chainId: string;
  vmType: VmType;
  /** Serve the evm-internal-txs routes (EVM with INTERNAL_TX, default on; the 404 stub otherwise). */
  internalTx: boolean;
  accountPrefix: string;
  /** In-process response cache (TTL per route). */
  cache: boolean;
  /** Memory budget of the response cache. */
  cacheMaxBytes: number;
  /** Memory budget of the stored-row cache behind the tx list pages (API_ROW_CACHE_MB); 0 = off. */
  rowCacheBytes: number;
  cors: CorsOptions;
  /** Budget for `pagination.total` counts; past it the total is "-1". */
  countTimeoutMs: number;
  /** /ready fails when the ingest checkpoint is older than this (0 = not checked). */
  readyMaxLagSeconds: number;
  /** Request-size and work limits, and the optional rate limit / expensive-query cap (docs/operator.md "Limits"). */
  limits: ApiLimits;
  streams: StreamOptions;
  version: string;
  commit: string;
}

export interface ApiLimits {
  /** Deepest OFFSET scanned where it cannot be a key look-up (400 past it). */
  maxOffset: number;
  /** Request line + headers (431 past it); bounds the URL too. */
  maxHeaderBytes: number;
  /** Request body (413 past it); no route reads one. */
  maxBodyBytes: number;
  /** Time to receive a whole request (408 past it): slow-header clients cannot hold sockets. */
  requestTimeoutMs: number;
  /** Requests per second per client address; 0 = no rate limit (429 past it). */
  rateLimitPerSecond: number;
  /** Bucket size of the rate limit (requests a client may send at once). */
  rateLimitBurst: number;
  /** Concurrent exact counts + offset scans; 0 = no cap (a count then says "-1", a scan 503). */
  maxExpensiveQueries: number;
}

/** Live streams (docs/stream.md). */
export interface StreamOptions {
  /** Stored items a resume may replay; a resume point further back is refused (410). */
  maxReplay: number;
  heartbeatMs: number;
  /** The `retry:` a client waits before it reconnects. */
  retryMs: number;
  /** Open streams per process (503 past it). */
  maxSubscribers: number;
  /** Bytes waiting for one subscriber past which it is closed as too slow. */
  maxBufferBytes: number;
  /** Checkpoint poll interval where no commit notification reaches the process (a replica). */
  pollMs: number;
}

/** Flags of `rollup-indexer api`; each overrides its env variable. */
export interface ApiFlags {
  port?: string;
  host?: string;
  chainId?: string;
  vmType?: string;
  cache?: boolean;
}

const boolText = z
  .enum(['true', 'false', '1', '0'], { message: 'must be true or false' })
  .transform((v) => v === 'true' || v === '1');
const intText = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, 'must be a non-negative integer')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));

const envSchema = z.object({
  PORT: intText(0, 65_535).default(8080),
  HOST: z.string().min(1).default('0.0.0.0'),
  CHAIN_ID: z.string().min(1).optional(),
  VM_TYPE: z.enum(['move', 'wasm', 'evm']).optional(),
  INTERNAL_TX: boolText.optional(),
  ACCOUNT_ADDRESS_PREFIX: z
    .string()
    .regex(/^[a-z0-9]+$/, 'must be a lower-case bech32 prefix')
    .default('init'),
  API_CACHE: boolText.default(true),
  API_CACHE_MAX_BYTES: intText(0, 68_719_476_736).default(64 * 1024 * 1024),
  API_ROW_CACHE_MB: intText(0, 65_536).default(128),
  // On by default (docs/api.md §0.9): explorers and wallets call the API from the browser,
  // and a read-only API of public chain data with no cookies has nothing to protect by origin.
  CORS_ENABLED: boolText.default(true),
  CORS_ALLOW_ORIGINS: z.string().default('*'),
  CORS_ALLOW_METHODS: z.string().default('GET,HEAD,OPTIONS'),
  CORS_ALLOW_HEADERS: z.string().default('Origin, Content-Type, Accept, Authorization, X-Requested-With'),
  CORS_ALLOW_CREDENTIALS: boolText.default(false),
  CORS_EXPOSE_HEADERS: z.string().default(''),
  CORS_MAX_AGE: intText(0, 31_536_000).default(0),
  API_COUNT_TIMEOUT_MS: intText(1, 600_000).default(5000),
  READY_MAX_LAG_SECONDS: intText(0, 31_536_000).default(0),
  API_MAX_OFFSET: intText(0, Number.MAX_SAFE_INTEGER).default(10_000),
  API_MAX_HEADER_BYTES: intText(1024, 1_048_576).default(16_384),
  API_MAX_BODY_BYTES: intText(0, 104_857_600).default(65_536),
  API_REQUEST_TIMEOUT_MS: intText(100, 3_600_000).default(30_000),
  API_RATE_LIMIT: intText(0, 1_000_000).default(0),
  API_RATE_LIMIT_BURST: intText(0, 1_000_000).optional(),
  API_MAX_EXPENSIVE_QUERIES: intText(0, 10_000).default(0),
  API_STREAM_MAX_REPLAY: intText(0, 1_000_000).default(10_000),
  API_STREAM_HEARTBEAT_MS: intText(1000, 3_600_000).default(15_000),
  API_STREAM_RETRY_MS: intText(0, 3_600_000).default(2000),
  API_STREAM_MAX_SUBSCRIBERS: intText(0, 1_000_000).default(10_000),
  API_STREAM_MAX_BUFFER_BYTES: intText(65_536, 1_073_741_824).default(1_048_576),
  API_STREAM_POLL_MS: intText(10, 60_000).default(250),
  APP_VERSION: z.string().default(`v${packageVersion()}`),
  GIT_COMMIT: z.string().default('unknown'),
});

const edgeSchema = envSchema.pick({
  API_MAX_HEADER_BYTES: true,
  API_MAX_BODY_BYTES: true,
  API_REQUEST_TIMEOUT_MS: true,
});

/** The HTTP edge's limits alone: a process opens its port with them before the chain is known. */
export function loadEdgeLimits(
  env: Env,
): Pick<ApiLimits, 'maxHeaderBytes' | 'maxBodyBytes' | 'requestTimeoutMs'> {
  const e = parseEnv(edgeSchema, setVariables(edgeSchema, env));
  return {
    maxHeaderBytes: e.API_MAX_HEADER_BYTES,
    maxBodyBytes: e.API_MAX_BODY_BYTES,
    requestTimeoutMs: e.API_REQUEST_TIMEOUT_MS,
  };
}

/** The schema's variables that are set: the API treats an empty value as unset. */
function setVariables(schema: z.ZodObject, values: Env): Env {
  return Object.fromEntries(
    Object.keys(schema.shape).flatMap((k) =>
      values[k] === undefined || values[k] === '' ? [] : [[k, values[k]]],
    ),
  );
}

/** ApiOptions before the chain is known: CHAIN_ID / VM_TYPE may wait for what ingest recorded. */
export interface ApiSettings extends Omit<ApiOptions, 'chainId' | 'vmType' | 'internalTx'> {
  chainId: string | undefined;
  vmType: VmType | undefined;
  /** INTERNAL_TX as given (undefined = the VM's default). */
  internalTx: boolean | undefined;
}

/**
 * Env (+ flags) → frozen ApiOptions. CHAIN_ID / VM_TYPE may come from `chainMeta` (what ingest
 * recorded) when neither env nor flags give them. Errors name the variable.
 */
export function loadApiOptions(
  env: Readonly<Record<string, string | undefined>>,
  flags: ApiFlags = {},
  chainMeta?: { chainId: string; vmType: VmType },
): ApiOptions {
  return withChainIdentity(loadApiSettings(env, flags), chainMeta);
}

/**
 * Env (+ flags) → frozen ApiSettings, checked at start before any database or node is reached;
 * the chain identity is settled later by withChainIdentity. Errors name the variable.
 */
export function loadApiSettings(
  env: Readonly<Record<string, string | undefined>>,
  flags: ApiFlags = {},
): Readonly<ApiSettings> {
  const e = parseEnv(envSchema, setVariables(envSchema, { ...env, ...flagsAsEnv(flags) }));
  if (e.INTERNAL_TX === true && e.VM_TYPE !== undefined) checkInternalTx(e.VM_TYPE);
  return Object.freeze({
    port: e.PORT,
    host: e.HOST,
    chainId: e.CHAIN_ID,
    vmType: e.VM_TYPE,
    internalTx: e.INTERNAL_TX,
    accountPrefix: e.ACCOUNT_ADDRESS_PREFIX,
    cache: e.API_CACHE,
    cacheMaxBytes: e.API_CACHE_MAX_BYTES,
    rowCacheBytes: e.API_ROW_CACHE_MB * 1024 * 1024,
    cors: Object.freeze(corsOptions(e)),
    countTimeoutMs: e.API_COUNT_TIMEOUT_MS,
    readyMaxLagSeconds: e.READY_MAX_LAG_SECONDS,
    limits: Object.freeze(apiLimits(e)),
    streams: Object.freeze(streamOptions(e)),
    version: e.APP_VERSION,
    commit: e.GIT_COMMIT,
  });
}

/** The settings with the chain identity: given, else what ingest recorded, else an error naming it. */
export function withChainIdentity(
  settings: Readonly<ApiSettings>,
  chainMeta?: { chainId: string; vmType: VmType },
): ApiOptions {
  const chainId = settings.chainId ?? chainMeta?.chainId;
  const vmType = settings.vmType ?? chainMeta?.vmType;
  if (chainId === undefined || chainId === '') {
    throw new InputError(
      'invalid_config',
      'CHAIN_ID is required (or index a chain first so chain_meta records it)',
    );
  }
  if (vmType === undefined) {
    throw new InputError('invalid_config', 'VM_TYPE is required: move, wasm or evm');
  }
  if (settings.internalTx === true) checkInternalTx(vmType);
  return Object.freeze({
    ...settings,
    chainId,
    vmType,
    internalTx: vmType === 'evm' && settings.internalTx !== false,
  });
}

/** Flags override the variable of the same meaning. */
function flagsAsEnv(flags: ApiFlags): Env {
  const asEnv: Env = {
    PORT: flags.port,
    HOST: flags.host,
    CHAIN_ID: flags.chainId,
    VM_TYPE: flags.vmType,
    API_CACHE: flags.cache === undefined ? undefined : String(flags.cache),
  };
  return Object.fromEntries(Object.entries(asEnv).filter(([, value]) => value !== undefined));
}

type ApiEnv = z.output<typeof envSchema>;

function corsOptions(e: ApiEnv): CorsOptions {
  return {
    enabled: e.CORS_ENABLED,
    allowOrigins: e.CORS_ALLOW_ORIGINS.split(',')
      .map((o) => o.trim().toLowerCase())
      .filter(Boolean),
    allowMethods: e.CORS_ALLOW_METHODS,
    allowHeaders: e.CORS_ALLOW_HEADERS.replace(/\s+/g, ''),
    allowCredentials: e.CORS_ALLOW_CREDENTIALS,
    exposeHeaders: e.CORS_EXPOSE_HEADERS,
    maxAge: e.CORS_MAX_AGE,
  };
}

function apiLimits(e: ApiEnv): ApiLimits {
  return {
    maxOffset: e.API_MAX_OFFSET,
    maxHeaderBytes: e.API_MAX_HEADER_BYTES,
    maxBodyBytes: e.API_MAX_BODY_BYTES,
    requestTimeoutMs: e.API_REQUEST_TIMEOUT_MS,
    rateLimitPerSecond: e.API_RATE_LIMIT,
    rateLimitBurst: Math.max(1, e.API_RATE_LIMIT_BURST ?? 2 * e.API_RATE_LIMIT),
    maxExpensiveQueries: e.API_MAX_EXPENSIVE_QUERIES,
  };
}

function streamOptions(e: ApiEnv): StreamOptions {
  return {
    maxReplay: e.API_STREAM_MAX_REPLAY,
    heartbeatMs: e.API_STREAM_HEARTBEAT_MS,
    retryMs: e.API_STREAM_RETRY_MS,
    maxSubscribers: e.API_STREAM_MAX_SUBSCRIBERS,
    maxBufferBytes: e.API_STREAM_MAX_BUFFER_BYTES,
    pollMs: e.API_STREAM_POLL_MS,
  };
}

/** How an API process reaches its database: a read replica first, else the primary, else PGlite. */
export interface ApiDatabaseOptions {
  target: DatabaseTarget;
  maxConnections: number;
  /** Session statement timeout for every query (counts use their own, shorter one). */
  statementTimeoutMs: number;
}

/**
 * One API process keeps PostgreSQL busy with a few queries in flight: past about two per core,
 * more backends only contend for the same cores. On 2 cores, 4 connections served token pages at
 * ~1.3x the rate of 20 with a lower p99 (bench:nft-api, PostgreSQL on the same host). The cores
 * counted are this host's: where PostgreSQL runs on a larger one, raise DB_MAX_CONNS.
 */
export const defaultPoolSize = (cores = availableParallelism()) => Math.min(20, Math.max(4, 2 * cores));

const dbEnvSchema = z.object({
  DB_MAX_CONNS: intText(1, 1000).default(defaultPoolSize()),
  DB_STATEMENT_TIMEOUT_MS: intText(0, 3_600_000).default(30_000),
});

export function loadApiDatabaseOptions(
  env: Readonly<Record<string, string | undefined>>,
): ApiDatabaseOptions {
  const url = [env.DATABASE_READ_URL, env.DATABASE_URL, env.DB_DSN].find(
    (u) => u !== undefined && u.trim() !== '',
  );
  const e = parseEnv(dbEnvSchema, setVariables(dbEnvSchema, env));
  return {
    target: databaseTarget(url, env.DATA_DIR, 'DATABASE_READ_URL / DATABASE_URL'),
    maxConnections: e.DB_MAX_CONNS,
    statementTimeoutMs: e.DB_STATEMENT_TIMEOUT_MS,
  };
}
