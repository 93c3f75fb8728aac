import { z } from 'zod';
import { availableParallelism } from 'node:os';
import { InputError } from './errors.js';
import type { ErrorCode } from './error-codes.js';
import { defaultLogFormat, type LogFormat } from './logger.js';

export type VmType = 'move' | 'wasm' | 'evm';
export type Env = Record<string, string | undefined>;

/** Where rows live: a PostgreSQL URL, or the embedded PGlite in a data directory. */
export type DatabaseTarget = { kind: 'postgres'; url: string } | { kind: 'pglite'; dataDir: string };

export interface NodeEndpoints {
  rpc: string[];
  rest: string[];
  jsonRpc: string[];
}

export interface IngestOptions {
  chainId: string | undefined;
  vmType: VmType | undefined;
  endpoints: NodeEndpoints;
  database: DatabaseTarget;
  port: number;
  /** Listen address of the HTTP port. */
  host: string;
  startHeight: number | undefined;
  untilHeight: number | undefined;
  maxConcurrentRequests: number;
  accountPrefix: string;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  logFormat: LogFormat;
  /** Show the backfill progress bar (TTY only by default). */
  progress: boolean;
  /** Collect NFT collections and tokens (NFT_INDEXING, default true). */
  nftIndexing: boolean;
  /** Trace EVM internal txs (INTERNAL_TX): undefined = on for EVM; true on Move/Wasm is an error. */
  internalTx: boolean | undefined;
  /** Keep per-denom balances for the rich list (RICH_LIST, default true on every VM). */
  richList: boolean;
  /**
   * Worker threads fetching and preparing blocks (PREPARE_WORKERS; 0 = in the main thread);
   * default by the number of cores.
   */
  prepareWorkers: number;
  /**
   * Most blocks one block-stream commit holds (MAX_BLOCKS_PER_COMMIT); undefined = the pipeline's
   * default (docs/ingest.md §4).
   */
  maxBlocksPerCommit: number | undefined;
}

const urlList = (name: string) =>
  z
    .string()
    .optional()
    .transform((value, ctx) => {
      const items = (value ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      for (const item of items) {
        if (!/^https?:\/\/[^\s]+$/.test(item)) {
          ctx.addIssue({ code: 'custom', message: `${name} must be http(s) URLs, got "${redactUrl(item)}"` });
        }
      }
      return items.map((u) => u.replace(/\/+$/, ''));
    });

const intIn = (name: string, min: number, max: number) =>
  z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value.trim() === '') return undefined;
      const n = Number(value);
      if (!Number.isInteger(n) || n < min || n > max) {
        ctx.addIssue({
          code: 'custom',
          message: `${name} must be an integer in ${min}..${max}, got "${value}"`,
        });
        return undefined;
      }
      return n;
    });

/** LOG_LEVEL and LOG_FORMAT, read the same way by every process kind. */
const logEnvShape = {
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
      message: 'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent',
    })
    .optional(),
  LOG_FORMAT: z.enum(['json', 'pretty'], { message: 'LOG_FORMAT must be json or pretty' }).optional(),
};
const logEnvSchema = z.object(logEnvShape);

export type LogLevel = IngestOptions['logLevel'];

/** Log settings of a process that takes no other config from the environment (api, vip). */
export function loadLogOptions(env: Env): Readonly<{ logLevel: LogLevel; logFormat: LogFormat }> {
  const e = parseEnv(logEnvSchema, {
    LOG_LEVEL: env.LOG_LEVEL || undefined,
    LOG_FORMAT: env.LOG_FORMAT || undefined,
  });
  return Object.freeze({ logLevel: e.LOG_LEVEL ?? 'info', logFormat: e.LOG_FORMAT ?? defaultLogFormat() });
}

const ingestEnvSchema = z.object({
  CHAIN_ID: z.string().min(1).optional(),
  VM_TYPE: z.enum(['move', 'wasm', 'evm'], { message: 'VM_TYPE must be one of move, wasm, evm' }).optional(),
  RPC_URL: urlList('RPC_URL'),
  REST_URL: urlList('REST_URL'),
  JSON_RPC_URL: urlList('JSON_RPC_URL'),
  DATABASE_URL: z.string().optional(),
  DB_DSN: z.string().optional(),
  DATA_DIR: z.string().optional(),
  PORT: intIn('PORT', 0, 65535),
  HOST: z.string().min(1, 'HOST must not be empty').optional(),
  START_HEIGHT: intIn('START_HEIGHT', 0, Number.MAX_SAFE_INTEGER),
  UNTIL_HEIGHT: intIn('UNTIL_HEIGHT', 1, Number.MAX_SAFE_INTEGER),
  MAX_CONCURRENT_REQUESTS: intIn('MAX_CONCURRENT_REQUESTS', 1, 1000),
  ACCOUNT_ADDRESS_PREFIX: z
    .string()
    .regex(/^[a-z][a-z0-9]*$/, 'ACCOUNT_ADDRESS_PREFIX must be a lower-case bech32 prefix')
    .optional(),
  ...logEnvShape,
  NFT_INDEXING: z.enum(['true', 'false'], { message: 'NFT_INDEXING must be true or false' }).optional(),
  INTERNAL_TX: z.enum(['true', 'false'], { message: 'INTERNAL_TX must be true or false' }).optional(),
  RICH_LIST: z.enum(['true', 'false'], { message: 'RICH_LIST must be true or false' }).optional(),
  PREPARE_WORKERS: intIn('PREPARE_WORKERS', 0, 64),
  MAX_BLOCKS_PER_COMMIT: intIn('MAX_BLOCKS_PER_COMMIT', 1, 10_000),
});

/**
 * Prepare workers when none is configured: one thread per core beyond the main thread's, at most
 * two (one was measured, on a 2-core host); none on one core, where a thread buys nothing.
 */
export function defaultPrepareWorkers(): number {
  return Math.max(0, Math.min(availableParallelism() - 1, 2));
}

/**
 * Ingest configuration from the environment, with CLI flags (already mapped to the same env
 * names) taking precedence. Every problem is reported at once, naming the variable.
 */
export function loadIngestOptions(env: Env, flags: Env = {}): Readonly<IngestOptions> {
  const merged = { ...env, ...Object.fromEntries(Object.entries(flags).filter(([, v]) => v !== undefined)) };
  const e = parseEnv(ingestEnvSchema, merged);
  if (e.RPC_URL.length === 0) throw new InputError('invalid_config', 'RPC_URL is required');
  if (e.REST_URL.length === 0) throw new InputError('invalid_config', 'REST_URL is required');
  if (e.VM_TYPE === 'evm' && e.JSON_RPC_URL.length === 0) {
    throw new InputError('invalid_config', 'JSON_RPC_URL is required when VM_TYPE=evm');
  }
  const internalTx = e.INTERNAL_TX === undefined ? undefined : e.INTERNAL_TX === 'true';
  if (internalTx && e.VM_TYPE !== undefined) checkInternalTx(e.VM_TYPE);
  return Object.freeze({
    chainId: e.CHAIN_ID,
    vmType: e.VM_TYPE,
    endpoints: { rpc: e.RPC_URL, rest: e.REST_URL, jsonRpc: e.JSON_RPC_URL },
    database: databaseTarget(e.DATABASE_URL ?? e.DB_DSN, e.DATA_DIR),
    port: e.PORT ?? 8080,
    host: e.HOST ?? '0.0.0.0',
    startHeight: e.START_HEIGHT,
    untilHeight: e.UNTIL_HEIGHT,
    maxConcurrentRequests: e.MAX_CONCURRENT_REQUESTS ?? 16,
    accountPrefix: e.ACCOUNT_ADDRESS_PREFIX ?? 'init',
    logLevel: e.LOG_LEVEL ?? 'info',
    logFormat: e.LOG_FORMAT ?? defaultLogFormat(),
    progress: process.stderr.isTTY === true,
    nftIndexing: e.NFT_INDEXING !== 'false',
    internalTx,
    richList: e.RICH_LIST !== 'false',
    prepareWorkers: e.PREPARE_WORKERS ?? defaultPrepareWorkers(),
    maxBlocksPerCommit: e.MAX_BLOCKS_PER_COMMIT,
  });
}

/** INTERNAL_TX=true is only meaningful on EVM (also checked once the node has told the VM). */
export function checkInternalTx(vm: VmType): void {
  if (vm !== 'evm') {
    throw new InputError('invalid_config', `INTERNAL_TX=true needs an EVM rollup; this one runs ${vm}`);
  }
}

/** Parses variables with a schema; every problem goes into one typed error that names each variable. */
export function parseEnv<S extends z.ZodType>(schema: S, values: Env): z.output<S> {
  const parsed = schema.safeParse(values);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ` : '') + i.message);
  throw new InputError('invalid_config', `invalid configuration: ${problems.join('; ')}`, { problems });
}

/**
 * A flag's problem inside a schema: its message names the flag; `code` is the error code the
 * whole parse fails with when this is the first problem (default invalid_option).
 */
export function flagProblem(
  ctx: z.RefinementCtx,
  message: string,
  code: ErrorCode = 'invalid_option',
): typeof z.NEVER {
  ctx.addIssue({ code: 'custom', message, params: { code } });
  return z.NEVER;
}

/** Parses CLI flags with a schema; every problem goes into one typed error, each naming its flag. */
export function parseFlags<S extends z.ZodType>(schema: S, values: unknown): z.output<S> {
  const parsed = schema.safeParse(values);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => issue.message);
  const first = parsed.error.issues[0] as { params?: { code?: ErrorCode } } | undefined;
  throw new InputError(first?.params?.code ?? 'invalid_option', problems.join('; '), { problems });
}

/** `variable` names the setting in the error (e.g. "DATABASE_READ_URL / DATABASE_URL" for the API). */
export function databaseTarget(
  url: string | undefined,
  dataDir: string | undefined,
  variable = 'DATABASE_URL',
): DatabaseTarget {
  if (url !== undefined && url.trim() !== '') {
    if (!/^postgres(ql)?:\/\//.test(url)) {
      throw new InputError('invalid_config', `${variable} must be a postgres:// or postgresql:// URL`);
    }
    return { kind: 'postgres', url };
  }
  return { kind: 'pglite', dataDir: dataDir ?? './data' };
}

/** Freezes a config and every object in it: options are read-only from the edge on. */
export function deepFreeze<T>(value: T): Readonly<T> {
  if (value !== null && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/** A URL safe to log: credentials replaced. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.username || u.password) {
      u.username = '***';
      u.password = '';
    }
    return u.toString().replace(/\/$/, '');
  } catch {
    return '<invalid url>';
  }
}
