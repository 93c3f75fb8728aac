import { rm } from 'node:fs/promises';
import type { Command } from 'commander';
import type { NodeEndpoints } from '../../shared/config.js';
import { createLogger, defaultLogFormat } from '../../shared/logger.js';
import type { Simulator } from '../../sim/types.js';
import { loadDeploymentConfig } from '../deployment-config.js';
import { runDeploymentProcess } from '../deployment-process.js';
import { runIngestProcess } from '../ingest-process.js';
import {
  loadDemoConfig,
  loadIndexerConfig,
  loadStartConfig,
  type DemoConfig,
  type DemoFlags,
} from '../process-config.js';
import { registerMigrate } from './migrate.js';
import { flagsAsEnv, type NodeFlags } from '../node-flags.js';
import { registerRepairCommands } from './repair.js';
import { registerRerender } from './rerender.js';

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

/** `start` and `indexer`: the same ingest process, the first with the read API on its port. */
const INGEST_COMMANDS = [
  {
    name: 'start',
    description: 'Index the rollup and serve the read API in one process',
    portHelp: 'API port (env PORT, default 8080)',
    loadConfig: loadStartConfig,
  },
  {
    name: 'indexer',
    description: 'Index the rollup only (serves /health and /metrics on --port)',
    portHelp: 'health and metrics port (env PORT, default 8080)',
    loadConfig: loadIndexerConfig,
  },
] as const;

export function registerIngestCommands(program: Command): void {
  for (const command of INGEST_COMMANDS) {
    withNodeOptions(program.command(command.name))
      .description(command.description)
      .option('--port <port>', command.portHelp)
      .option('--host <host>', 'listen address (env HOST, default 0.0.0.0)')
      .action(async (flags: NodeFlags) => {
        const serveApi = command.name === 'start';
        const deployment = loadDeploymentConfig(process.env, flagsAsEnv(flags), { serveApi });
        if (deployment) {
          await runDeploymentProcess({
            config: deployment,
            serveApi,
            onListening: (url) =>
              console.error(`listening on ${url} (${deployment.chains.length} chains: GET /chains)`),
          });
          return;
        }
        const config = command.loadConfig(process.env, flagsAsEnv(flags));
        await runIngestProcess({
          config,
          onListening: (url) => console.error(`listening on ${url} (/health, /ready, /metrics)`),
          ...(config.api
            ? { onApiListening: (url: string) => console.error(`API listening on ${url}`) }
            : {}),
        });
      });
  }
  registerMigrate(program);
  registerRerender(program);
  registerRepairCommands(program);
  registerDemo(program);
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
      const config = loadDemoConfig(process.env, flags);
      const { dataDir } = config.demo;
      if (config.demo.reset) await rm(dataDir, { recursive: true, force: true });
      const node = simulatedNode(config.demo);
      try {
        const height = await runIngestProcess({
          config,
          logger: createLogger({ level: 'warn', format: defaultLogFormat() }),
          onApiListening: (api) => printDemoHelp(api),
          resolveEndpoints: node.start,
        });
        console.error(`stopped at height ${height}; the index is kept in ${dataDir}`);
      } finally {
        await node.close();
      }
    });
}

/**
 * The demo's simulated rollup, started once the indexed height is known: the chain has at least
 * what is already indexed, so a second run resumes at once.
 */
function simulatedNode(demo: DemoConfig['demo']) {
  let sim: Simulator | undefined;
  const start = async (indexed: number): Promise<NodeEndpoints> => {
    const head = Math.max(demo.backlog, indexed);
    // Loaded here: only the demo needs the simulator (see cli.ts).
    const { createSimulator } = await import('../../sim/simulator.js');
    sim = createSimulator({
      vm: demo.vm,
      head,
      live: true,
      blockTimeMs: demo.blockTimeMs,
      txsPerBlock: '0-12',
      rpcPort: 0,
      restPort: 0,
      jsonRpcPort: 0,
    });
    const urls = await sim.listen();
    console.error(
      `simulated ${demo.vm} rollup from height ${head}: rpc ${urls.rpc}  rest ${urls.rest}${urls.jsonRpc ? `  json-rpc ${urls.jsonRpc}` : ''}`,
    );
    return { rpc: [urls.rpc], rest: [urls.rest], jsonRpc: urls.jsonRpc ? [urls.jsonRpc] : [] };
  };
  return { start, close: async () => sim?.close() };
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
