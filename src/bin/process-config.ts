import {
  loadApiDatabaseOptions,
  loadApiSettings,
  loadEdgeLimits,
  type ApiDatabaseOptions,
  type ApiFlags,
  type ApiSettings,
} from '../api/options.js';
import { z } from 'zod';
import {
  databaseTarget,
  deepFreeze,
  flagProblem,
  loadIngestOptions,
  loadLogOptions,
  parseFlags,
  type DatabaseTarget,
  type Env,
  type IngestOptions,
  type LogLevel,
  type VmType,
} from '../shared/config.js';
import { InputError, type ErrorCode } from '../shared/errors.js';
import type { LogFormat } from '../shared/logger.js';

/**
 * One config per process kind, each parsed once from env + flags at the command's edge into a
 * frozen value (errors name the variable or flag); nothing below reads the environment again.
 * `vip` and `sim` have theirs beside their tools (src/vip/options.ts, src/sim/options.ts), so the
 * ingest commands load neither.
 */

export type HttpEdgeLimits = ReturnType<typeof loadEdgeLimits>;

/** The read API an ingest process serves on its own port (`start`, `demo`). */
export interface ServedApiConfig {
  /** PORT and HOST are the ingest process's own. */
  settings: Readonly<ApiSettings>;
  /** A replica (DATABASE_READ_URL), else ingest's own database (its own pool on PostgreSQL). */
  database: ApiDatabaseOptions;
  /** A replica has a commit only once it replayed it: the API then polls its checkpoint. */
  readsReplica: boolean;
}

/** `start`, `indexer` and `demo`: one ingest process, with or without the API on its port. */
export interface IngestProcessConfig {
  ingest: Readonly<IngestOptions>;
  /** Limits of the HTTP port, open from the first second (health, readiness, metrics). */
  edge: HttpEdgeLimits;
  /** Absent for `indexer`, which serves only /health, /ready and /metrics. */
  api?: ServedApiConfig;
}

/** `start`: ingest and the read API in one process. */
export function loadStartConfig(env: Env, flags: Env): Readonly<IngestProcessConfig> {
  const ingest = loadIngestOptions(env, flags);
  return deepFreeze({ ingest, edge: loadEdgeLimits(env), api: servedApiConfig(env, ingest) });
}

/** `indexer`: ingest alone. */
export function loadIndexerConfig(env: Env, flags: Env): Readonly<IngestProcessConfig> {
  return deepFreeze({ ingest: loadIngestOptions(env, flags), edge: loadEdgeLimits(env) });
}

/** The API settings and read database of an ingest process that serves the API too. */
export function servedApiConfig(env: Env, ingest: Readonly<IngestOptions>): ServedApiConfig {
  const own = ingest.database;
  const database = loadApiDatabaseOptions({
    ...env,
    // Ingest's database as flags and env gave it; DATABASE_READ_URL, when set, comes first.
    DATABASE_URL: own.kind === 'postgres' ? own.url : undefined,
    DB_DSN: undefined,
    DATA_DIR: own.kind === 'pglite' ? own.dataDir : undefined,
  });
  return {
    settings: loadApiSettings({ ...env, PORT: String(ingest.port), HOST: ingest.host }),
    database,
    readsReplica: Boolean(env.DATABASE_READ_URL),
  };
}

/** `api`: the read API alone, on a database (or replica) another process fills. */
export interface ApiProcessConfig {
  settings: Readonly<ApiSettings>;
  database: ApiDatabaseOptions;
  readsReplica: boolean;
  logLevel: LogLevel;
  logFormat: LogFormat;
}

export function loadApiProcessConfig(env: Env, flags: ApiFlags): Readonly<ApiProcessConfig> {
  return deepFreeze({
    ...loadLogOptions(env),
    settings: loadApiSettings(env, flags),
    database: loadApiDatabaseOptions(env),
    readsReplica: Boolean(env.DATABASE_READ_URL),
  });
}

/** Flags of `migrate`. */
export interface MigrateFlags {
  databaseUrl?: string;
  dataDir?: string;
  createReadonlyRole?: string;
  readonlyPasswordEnv?: string;
  printReadonlySql?: string;
  to?: string;
}

/** `migrate`: print the read-only role's SQL, or apply migrations (and create that role). */
export type MigrateConfig =
  | { kind: 'print-readonly-sql'; role: string; database: DatabaseTarget }
  | {
      kind: 'migrate';
      database: DatabaseTarget;
      /** Apply pending migrations up to this file name only. */
      upTo: string | undefined;
      readonlyRole: { name: string; password: string | undefined } | undefined;
    };

export function loadMigrateConfig(env: Env, flags: MigrateFlags): Readonly<MigrateConfig> {
  const database = databaseTarget(
    flags.databaseUrl ?? env.DATABASE_URL ?? env.DB_DSN,
    flags.dataDir ?? env.DATA_DIR,
  );
  if (flags.printReadonlySql !== undefined) {
    return deepFreeze({ kind: 'print-readonly-sql', role: flags.printReadonlySql, database });
  }
  const role = flags.createReadonlyRole;
  if (role !== undefined && database.kind !== 'postgres')
    throw new InputError('invalid_option', '--create-readonly-role needs a PostgreSQL DATABASE_URL');
  const password = readonlyPassword(env, flags.readonlyPasswordEnv);
  return deepFreeze({
    kind: 'migrate',
    database,
    upTo: flags.to,
    readonlyRole: role === undefined ? undefined : { name: role, password },
  });
}

function readonlyPassword(env: Env, variable: string | undefined): string | undefined {
  if (variable === undefined) return undefined;
  const value = env[variable];
  if (!value) throw new InputError('missing_option', `environment variable ${variable} is empty or unset`);
  return value;
}

/** Flags of `demo` (commander fills the defaults of vm, backlog and block time). */
export interface DemoFlags {
  vm: string;
  dataDir?: string;
  port?: string;
  host?: string;
  backlog: string;
  blockTimeMs: string;
  /** Simulated rollups in one deployment (commander default "1"). */
  rollups: string;
  until?: string;
  reset?: boolean;
  fastSignatures?: boolean;
}

/** `demo`: a simulated rollup, ingest and the API on PGlite; the simulator's settings beside. */
export interface DemoConfig extends IngestProcessConfig {
  demo: {
    vm: VmType;
    /** Blocks the simulated chain has at start. */
    backlog: number;
    blockTimeMs: number;
    dataDir: string;
    /** Delete the data directory first. */
    reset: boolean;
    /** More than 1: that many rollups of different VMs in one deployment (docs/chains.md). */
    rollups: number;
    /** The simulators sign nothing: signatures are unique but do not verify. */
    fastSignatures: boolean;
  };
}

/** An integer flag of at least `min`, or the flag's problem under `code`. */
const integerAtLeast = (flag: string, min: number, code: ErrorCode) =>
  z.string().transform((value, ctx) => {
    const n = Number(value);
    if (Number.isSafeInteger(n) && n >= min) return n;
    return flagProblem(ctx, `${flag} must be an integer ≥ ${min}, got "${value}"`, code);
  });

const demoFlagsSchema = z.object({
  vm: z.string().transform((value, ctx): VmType => {
    if (value === 'move' || value === 'wasm' || value === 'evm') return value;
    return flagProblem(ctx, `--vm must be move, wasm or evm, got "${value}"`, 'invalid_vm');
  }),
  backlog: integerAtLeast('--backlog', 1, 'invalid_backlog'),
  blockTimeMs: integerAtLeast('--block-time-ms', 10, 'invalid_block_time'),
  rollups: integerAtLeast('--rollups', 1, 'invalid_option').refine(
    (n) => n <= 12,
    '--rollups must be at most 12',
  ),
});

/** Every flag is checked before anything starts, so a bad one exits at once with nothing left running. */
export function loadDemoConfig(env: Env, flags: DemoFlags): Readonly<DemoConfig> {
  const { vm, backlog, blockTimeMs, rollups } = parseFlags(demoFlagsSchema, flags);
  const dataDir =
    flags.dataDir ?? env.DATA_DIR ?? (rollups > 1 ? `./demo-data/rollups-${rollups}` : `./demo-data/${vm}`);
  const ingest = loadIngestOptions(
    {},
    {
      // Placeholders: the simulator's URLs are known once it listens.
      RPC_URL: 'http://127.0.0.1:1',
      REST_URL: 'http://127.0.0.1:1',
      VM_TYPE: vm,
      DATA_DIR: dataDir,
      PORT: flags.port ?? env.PORT,
      HOST: flags.host ?? env.HOST ?? '127.0.0.1',
      UNTIL_HEIGHT: flags.until,
      LOG_LEVEL: 'warn',
    },
  );
  // The demo's API and port take nothing else from the environment: their defaults, its port.
  return deepFreeze({
    ingest: { ...ingest, progress: true },
    edge: loadEdgeLimits({}),
    api: servedApiConfig({}, ingest),
    demo: {
      vm,
      backlog,
      blockTimeMs,
      dataDir,
      reset: flags.reset === true,
      rollups,
      fastSignatures: flags.fastSignatures === true,
    },
  });
}
