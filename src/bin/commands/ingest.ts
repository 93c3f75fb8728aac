import type { Command } from 'commander';
import { databaseTarget, loadIngestOptions, type Env } from '../../shared/config.js';
import { createLogger, defaultLogFormat } from '../../shared/logger.js';
import { createSimulator } from '../../sim/simulator.js';
import type { VmType } from '../../sim/types.js';
import { InputError } from '../../shared/errors.js';
import { migrate } from '../../store/migrate.js';
import { openDatabase } from '../context.js';
import { runIngestProcess } from '../ingest-process.js';

interface NodeFlags {
  rpcUrl?: string;
  restUrl?: string;
  jsonRpcUrl?: string;
  chainId?: string;
  vm?: string;
  databaseUrl?: string;
  dataDir?: string;
  port?: string;
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
    .action(async (flags: NodeFlags) => {
      const ingest = loadIngestOptions(process.env, flagsAsEnv(flags));
      await runIngestProcess({
        ingest,
        env: process.env,
        withApi: true,
        onApiListening: (url) => console.error(`API listening on ${url}`),
      });
    });

  withNodeOptions(program.command('indexer'))
    .description('Index the rollup only (serves /health and /metrics on --port)')
    .option('--port <port>', 'health and metrics port (env PORT, default 8080)')
    .action(async (flags: NodeFlags) => {
      const ingest = loadIngestOptions(process.env, flagsAsEnv(flags));
      await runIngestProcess({ ingest, env: process.env, withApi: false });
    });

  program
    .command('migrate')
    .description('Apply pending database migrations and exit')
    .option('--database-url <url>', 'PostgreSQL URL; absent = embedded PGlite (env DATABASE_URL or DB_DSN)')
    .option('--data-dir <dir>', 'PGlite data directory (env DATA_DIR, default ./data)')
    .action(async (flags: { databaseUrl?: string; dataDir?: string }) => {
      const target = databaseTarget(
        flags.databaseUrl ?? process.env.DATABASE_URL ?? process.env.DB_DSN,
        flags.dataDir ?? process.env.DATA_DIR,
      );
      const db = await openDatabase(target);
      try {
        const { applied } = await migrate(db);
        console.log(applied.length ? `applied ${applied.join(', ')}` : 'database is up to date');
      } finally {
        await db.close();
      }
    });

  registerDemo(program);
}

function registerDemo(program: Command): void {
  program
    .command('demo')
    .description('Simulated rollup + indexer + API on the embedded database: a complete local setup')
    .option('--vm <vm>', 'move | wasm | evm', 'move')
    .option('--data-dir <dir>', 'PGlite data directory (default ./data/demo-<vm>)')
    .option('--port <port>', 'API port', '8080')
    .option('--backlog <blocks>', 'blocks the simulated chain already has', '600')
    .option('--block-time-ms <ms>', 'simulated block interval afterwards', '1000')
    .option('--until <h>', 'stop once height h is committed')
    .action(
      async (flags: {
        vm: string;
        dataDir?: string;
        port: string;
        backlog: string;
        blockTimeMs: string;
        until?: string;
      }) => {
        if (!['move', 'wasm', 'evm'].includes(flags.vm))
          throw new InputError('invalid_vm', '--vm must be move, wasm or evm');
        const vm = flags.vm as VmType;
        const logger = createLogger({ level: 'warn', format: defaultLogFormat() });
        const sim = createSimulator({
          vm,
          head: Number(flags.backlog),
          live: true,
          blockTimeMs: Number(flags.blockTimeMs),
          txsPerBlock: '0-12',
          rpcPort: 0,
          restPort: 0,
          jsonRpcPort: 0,
        });
        const urls = await sim.listen();
        console.error(
          `simulated ${vm} rollup: rpc ${urls.rpc}  rest ${urls.rest}${urls.jsonRpc ? `  json-rpc ${urls.jsonRpc}` : ''}`,
        );
        const ingest = loadIngestOptions(
          {},
          {
            RPC_URL: urls.rpc,
            REST_URL: urls.rest,
            JSON_RPC_URL: urls.jsonRpc,
            VM_TYPE: vm,
            DATA_DIR: flags.dataDir ?? `./data/demo-${vm}`,
            PORT: flags.port,
            UNTIL_HEIGHT: flags.until,
            LOG_LEVEL: 'warn',
          },
        );
        try {
          await runIngestProcess({
            ingest: { ...ingest, progress: true },
            env: {},
            withApi: true,
            logger,
            onApiListening: (api) => printDemoHelp(api),
          });
        } finally {
          await sim.close();
        }
      },
    );
}

function printDemoHelp(api: string): void {
  console.error(
    [
      '',
      `API listening on ${api}  (Ctrl-C to stop; the index is kept and resumes next time)`,
      `  curl ${api}/status`,
      `  curl '${api}/indexer/block/v1/blocks?pagination.limit=3'`,
      `  curl '${api}/indexer/tx/v1/txs?pagination.limit=2'`,
      `  open ${api}/swagger/index.html`,
      '',
    ].join('\n'),
  );
}
