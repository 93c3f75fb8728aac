import type { Command } from 'commander';
import { loadDeploymentConfig } from '../deployment-config.js';
import { runDeploymentProcess } from '../deployment-process.js';
import { runIngestProcess } from '../ingest-process.js';
import { loadIndexerConfig, loadStartConfig } from '../process-config.js';
import { registerDemo } from './demo.js';
import { registerMigrate } from './migrate.js';
import { capHeapGrowth } from '../heap-growth.js';
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
          capHeapGrowth();
          await runDeploymentProcess({
            config: deployment,
            serveApi,
            // SIGHUP reads the chains file again (docs/chains.md §6).
            reloadConfig: () => loadDeploymentConfig(process.env, flagsAsEnv(flags), { serveApi })!,
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
