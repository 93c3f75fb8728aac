import { rm } from 'node:fs/promises';
import type { Command } from 'commander';
import { loadIngestOptions, type Env } from '../../shared/config.js';
import { createLogger, defaultLogFormat } from '../../shared/logger.js';
import type { Simulator, VmType } from '../../sim/types.js';
import { InputError } from '../../shared/errors.js';
import { runIngestProcess } from '../ingest-process.js';
import { registerMigrate } from './migrate.js';
import { registerRerender } from './rerender.js';

interface NodeFlags {
  rpcUrl?: string;
  restUrl?: string;
  jsonRpcUrl?: string;
  chainId?: string;
  vm?: string;
  databaseUrl?: string;
  dataDir?: string;
  port?: string;
  host?: string;
  startHeight?: string;
  until?: string;
  logLevel?: string;
  logFormat?: string;
}

/** Flags override the environment variable of the same meaning. */
function flagsAsEnv(f: NodeFlags): Env {
  return {
    RPC_URL: f.rpcUrl,
    REST_URL: f.restUrl,
    JSON_RPC_URL: f.jsonRpcUrl,
    CHAIN_ID: f.chainId,
    VM_TYPE: f.vm,
    DATABASE_URL: f.databaseUrl,
    DATA_DIR: f.dataDir,
    PORT: f.port,
    HOST: f.host,
    START_HEIGHT: f.startHeight,
    UNTIL_HEIGHT: f.until,
    LOG_LEVEL: f.logLevel,
    LOG_FORMAT: f.logFormat,
  };
}

function withNodeOptions(cmd: Command): Command {
  return cmd
    .option('--rpc-url <urls>', 'CometBFT RPC URL(s), comma-separated (env RPC_URL)')
    .option('--rest-url <urls>', 'Cosmos REST URL(s) (env REST_URL)')
    .option('--json-rpc-url <urls>', 'EVM JSON-RPC URL(s), EVM rollups (env JSON_RPC_URL)')
    .option('--chain-id <id>', 'expected chain id; discovered from the node when absent (env CHAIN_ID)')
    .option('--vm <vm>', 'move | wasm | evm; discovered from the node when absent (env VM_TYPE)')
    .option('--database-url <url>', 'PostgreSQL URL; absent = embedded PGlite (env DATABASE_URL or DB_DSN)')
    .option('--data-dir <dir>', 'PGlite data directory (env DATA_DIR, default ./data)')
    .option('--start-height <h>', 'first height on an empty database (env START_HEIGHT)')
    .option('--until <h>', 'stop once height h is committed')
    .option('--log-level <level>', 'fatal|error|warn|info|debug|trace (env LOG_LEVEL)')
    .option('--log-format <format>', 'json | pretty (env LOG_FORMAT)');
}

export function registerIngestCommands(program: Command): void {
  withNodeOptions(program.command('start'))
    .description('Index the rollup and serve the read API in one process')
    .option('--port <port>', 'API port (env PORT, default 8080)')
    .option('--host <host>', 'listen address (env HOST, default 0.0.0.0)')
    .action(async (flags: NodeFlags) => {
      const ingest = loadIngestOptions(process.env, flagsAsEnv(flags));
      await runIngestProcess({
        ingest,
        env: process.env,
        withApi: true,
        onListening: (url) => console.error(`listening on ${url} (/health, /ready, /metrics)`),
        onApiListening: (url) => console.error(`API listening on ${url}`),
      });
    });

  withNodeOptions(program.command('indexer'))
    .description('Index the rollup only (serves /health and /metrics on --port)')
    .option('--port <port>', 'health and metrics port (env PORT, default 8080)')
    .option('--host <host>', 'listen address (env HOST, default 0.0.0.0)')
    .action(async (flags: NodeFlags) => {
      const ingest = loadIngestOptions(process.env, flagsAsEnv(flags));
      await runIngestProcess({
        ingest,
        env: process.env,
        withApi: false,
        onListening: (url) => console.error(`listening on ${url} (/health, /ready, /metrics)`),
      });
    });

  registerMigrate(program);
  registerRerender(program);
  registerDemo(program);
}

interface DemoFlags {
  vm: string;
  dataDir?: string;
  port?: string;
  host?: string;
  backlog: string;
  blockTimeMs: string;
  until?: string;
  reset?: boolean;
}

function registerDemo(program: Command): void {
  program
    .command('demo')
    .description('Simulated rollup + indexer + API on the embedded database: a complete local setup')
    .option('--vm <vm>', 'move | wasm | evm', 'move')
    .option('--data-dir <dir>', 'PGlite data directory (env DATA_DIR, default ./demo-data/<vm>)')
    .option('--port <port>', 'API port (env PORT, default 8080)')
    .option('--host <host>', 'listen address (env HOST, default 127.0.0.1)')
    .option('--backlog <blocks>', 'blocks the simulated chain already has', '600')
    .option('--block-time-ms <ms>', 'simulated block interval afterwards', '1000')
    .option('--until <h>', 'stop once height h is committed')
    .option('--reset', 'delete the demo data directory first and start over')
    .action(async (flags: DemoFlags) => {
      const { vm, backlog, blockTimeMs, dataDir, ingest } = demoOptions(flags);
      if (flags.reset) await rm(dataDir, { recursive: true, force: true });
      let sim: Simulator | undefined;
      try {
        const height = await runIngestProcess({
          ingest: { ...ingest, progress: true },
          env: {},
          withApi: true,
          logger: createLogger({ level: 'warn', format: defaultLogFormat() }),
          onApiListening: (api) => printDemoHelp(api),
          // The chain has at least what is already indexed, so a second run resumes at once.
          resolveEndpoints: async (indexed) => {
            const head = Math.max(backlog, indexed);
            // Loaded here: only the demo needs the simulator (see cli.ts).
            const { createSimulator } = await import('../../sim/simulator.js');
            sim = createSimulator({
              vm,
              head,
              live: true,
              blockTimeMs,
              txsPerBlock: '0-12',
              rpcPort: 0,
              restPort: 0,
              jsonRpcPort: 0,
            });
            const urls = await sim.listen();
            console.error(
              `simulated ${vm} rollup from height ${head}: rpc ${urls.rpc}  rest ${urls.rest}${urls.jsonRpc ? `  json-rpc ${urls.jsonRpc}` : ''}`,
            );
            return { rpc: [urls.rpc], rest: [urls.rest], jsonRpc: urls.jsonRpc ? [urls.jsonRpc] : [] };
          },
        });
        console.error(`stopped at height ${height}; the index is kept in ${dataDir}`);
      } finally {
        await sim?.close();
      }
    });
}

/** Every flag is checked before anything starts, so a bad one exits at once with nothing left running. */
function demoOptions(flags: DemoFlags) {
  if (!['move', 'wasm', 'evm'].includes(flags.vm))
    throw new InputError('invalid_vm', `--vm must be move, wasm or evm, got "${flags.vm}"`);
  const vm = flags.vm as VmType;
  const backlog = Number(flags.backlog);
  if (!Number.isSafeInteger(backlog) || backlog < 1)
    throw new InputError('invalid_backlog', `--backlog must be an integer ≥ 1, got "${flags.backlog}"`);
  const blockTimeMs = Number(flags.blockTimeMs);
  if (!Number.isSafeInteger(blockTimeMs) || blockTimeMs < 10)
    throw new InputError(
      'invalid_block_time',
      `--block-time-ms must be an integer ≥ 10, got "${flags.blockTimeMs}"`,
    );
  const env = process.env;
  const dataDir = flags.dataDir ?? env.DATA_DIR ?? `./demo-data/${vm}`;
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
  return { vm, backlog, blockTimeMs, dataDir, ingest };
}

function printDemoHelp(api: string): void {
  console.error(
    [
      '',
      `API listening on ${api}  (Ctrl-C to stop; the index is kept and resumes next time; --reset starts over)`,
      `  curl ${api}/status`,
      `  curl '${api}/indexer/block/v1/blocks?pagination.limit=3'`,
      `  curl '${api}/indexer/tx/v1/txs?pagination.limit=2'`,
      `  open ${api}/swagger/index.html`,
      '',
    ].join('\n'),
  );
}
