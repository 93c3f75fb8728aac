import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import type { NodeEndpoints, VmType } from '../../shared/config.js';
import { createLogger, defaultLogFormat } from '../../shared/logger.js';
import type { Simulator } from '../../sim/types.js';
import { readIndexedHeight } from '../../store/readers/chain-meta.js';
import { createChainDatabases } from '../chain-databases.js';
import { loadDeploymentConfig } from '../deployment-config.js';
import { runDeploymentProcess } from '../deployment-process.js';
import { capHeapGrowth } from '../heap-growth.js';
import { runIngestProcess } from '../ingest-process.js';
import { loadDemoConfig, type DemoConfig, type DemoFlags } from '../process-config.js';

export function registerDemo(program: Command): void {
  program
    .command('demo')
    .description('Simulated rollup(s) + indexer + API on the embedded database: a complete local setup')
    .option('--vm <vm>', 'move | wasm | evm', 'move')
    .option(
      '--rollups <n>',
      'run n simulated rollups of different VMs in one deployment (docs/chains.md)',
      '1',
    )
    .option(
      '--data-dir <dir>',
      'PGlite data directory (env DATA_DIR, default ./demo-data/<vm> or ./demo-data/rollups-<n>)',
    )
    .option('--port <port>', 'API port (env PORT, default 8080)')
    .option('--host <host>', 'listen address (env HOST, default 127.0.0.1)')
    .option('--backlog <blocks>', 'blocks the simulated chain already has', '600')
    .option('--block-time-ms <ms>', 'simulated block interval afterwards', '1000')
    .option('--until <h>', 'stop once height h is committed')
    .option('--reset', 'delete the demo data directory first and start over')
    .option(
      '--fast-signatures',
      'simulated txs are not signed (unique signatures that do not verify): a quicker backlog',
    )
    .action(async (flags: DemoFlags) => {
      const config = loadDemoConfig(process.env, flags);
      const { dataDir } = config.demo;
      if (config.demo.reset) await rm(dataDir, { recursive: true, force: true });
      if (config.demo.rollups > 1) return runRollupsDemo(config);
      const node = simulatedNode(config.demo);
      try {
        const height = await runIngestProcess({
          config,
          logger: createLogger({ level: 'warn', format: defaultLogFormat() }),
          onApiListening: (api) => printDemoHelp(api),
          resolveEndpoints: (indexed) => node.start(indexed),
        });
        console.error(`stopped at height ${height}; the index is kept in ${dataDir}`);
      } finally {
        await node.close();
      }
    });
}

/** The VMs of `--rollups n`, in turn: a Move, a Wasm and an EVM rollup, then again. */
const ROLLUP_VMS: readonly VmType[] = ['move', 'wasm', 'evm'];

/**
 * `demo --rollups n`: n simulated rollups (different VMs, chain ids and seeds) in one deployment
 * on PGlite, the chains file written beside the index.
 */
async function runRollupsDemo(config: DemoConfig): Promise<void> {
  const { demo } = config;
  const rollups = Array.from({ length: demo.rollups }, (_, i) => {
    const vm = ROLLUP_VMS[i % ROLLUP_VMS.length]!;
    return { vm, chainId: `mini${vm}-${Math.floor(i / ROLLUP_VMS.length) + 1}`, seed: i + 1 };
  });
  const dbDir = path.join(demo.dataDir, 'db');
  await mkdir(demo.dataDir, { recursive: true });
  const indexed = await indexedHeights(
    dbDir,
    rollups.map((r) => r.chainId),
  );
  const nodes = rollups.map((r) =>
    simulatedNode({ ...demo, vm: r.vm }, { chainId: r.chainId, seed: r.seed }),
  );
  try {
    const chains = [];
    for (const [i, r] of rollups.entries()) {
      const urls = await nodes[i]!.start(indexed.get(r.chainId) ?? 0);
      chains.push({
        chain_id: r.chainId,
        vm: r.vm,
        rpc: urls.rpc,
        rest: urls.rest,
        ...(r.vm === 'evm' ? { json_rpc: urls.jsonRpc } : {}),
      });
    }
    const file = path.join(demo.dataDir, 'chains.json');
    await writeFile(file, JSON.stringify({ chains }, null, 2));
    const deployment = loadDeploymentConfig(
      {
        CHAINS_FILE: file,
        DATA_DIR: dbDir,
        PORT: String(config.ingest.port),
        HOST: config.ingest.host,
        LOG_LEVEL: 'warn',
        ...(config.ingest.untilHeight === undefined
          ? {}
          : { UNTIL_HEIGHT: String(config.ingest.untilHeight) }),
      },
      {},
      { serveApi: true },
    )!;
    capHeapGrowth();
    await runDeploymentProcess({
      config: deployment,
      serveApi: true,
      logger: createLogger({ level: 'warn', format: defaultLogFormat() }),
      onListening: (api) => printRollupsHelp(api, rollups, busiestAccount(nodes.map((n) => n.simulator()))),
    });
    console.error(`stopped; the index is kept in ${demo.dataDir}`);
  } finally {
    await Promise.all(nodes.map((n) => n.close()));
  }
}

/** Each chain's committed height in an existing demo index (0 when new), so its simulator starts there. */
async function indexedHeights(dataDir: string, chainIds: readonly string[]): Promise<Map<string, number>> {
  const databases = createChainDatabases();
  const heights = new Map<string, number>();
  const opened = await Promise.all(
    chainIds.map((id) => databases.open(id, { kind: 'pglite', dataDir }, { create: false })),
  );
  try {
    for (const [i, { db }] of opened.entries()) {
      heights.set(chainIds[i]!, await readIndexedHeight(db).catch(() => 0));
    }
  } finally {
    for (const { db } of opened) await db.close();
  }
  return heights;
}

/** The account active on the most of the simulated chains' first blocks (the README's one `curl`). */
function busiestAccount(sims: ReadonlyArray<Simulator | undefined>): string | undefined {
  const chainsOf = new Map<string, Set<number>>();
  sims.forEach((sim, i) => {
    for (let h = 1; sim && h <= Math.min(sim.head(), 200); h++) {
      for (const tx of sim.truth.block(h).txs) {
        for (const a of tx.accounts) chainsOf.set(a, (chainsOf.get(a) ?? new Set()).add(i));
      }
    }
  });
  let best: [string, number] | undefined;
  for (const [account, chains] of chainsOf) if (!best || chains.size > best[1]) best = [account, chains.size];
  return best?.[0];
}

/**
 * The demo's simulated rollup, started once the indexed height is known: the chain has at least
 * what is already indexed, so a second run resumes at once.
 */
function simulatedNode(demo: DemoConfig['demo'], identity: { chainId?: string; seed?: number } = {}) {
  let sim: Simulator | undefined;
  const start = async (
    indexed: number,
  ): Promise<NodeEndpoints & { rpc: string[] } & { jsonRpc: string[] }> => {
    const head = Math.max(demo.backlog, indexed);
    // Loaded here: only the demo needs the simulator (see cli.ts).
    const { createSimulator } = await import('../../sim/simulator.js');
    sim = createSimulator({
      vm: demo.vm,
      ...identity,
      head,
      live: true,
      blockTimeMs: demo.blockTimeMs,
      fastSignatures: demo.fastSignatures,
      txsPerBlock: '0-12',
      rpcPort: 0,
      restPort: 0,
      jsonRpcPort: 0,
    });
    const urls = await sim.listen();
    console.error(
      `simulated ${demo.vm} rollup${identity.chainId ? ` ${identity.chainId}` : ''} from height ${head}: rpc ${urls.rpc}  rest ${urls.rest}${urls.jsonRpc ? `  json-rpc ${urls.jsonRpc}` : ''}`,
    );
    return { rpc: [urls.rpc], rest: [urls.rest], jsonRpc: urls.jsonRpc ? [urls.jsonRpc] : [] };
  };
  return { start, simulator: () => sim, close: async () => sim?.close() };
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

function printRollupsHelp(
  api: string,
  rollups: ReadonlyArray<{ chainId: string }>,
  account: string | undefined,
): void {
  console.error(
    [
      '',
      `${rollups.length} rollups served on ${api}  (Ctrl-C to stop; the index is kept; --reset starts over)`,
      `  curl ${api}/chains`,
      ...rollups.map((r) => `  curl ${api}/chains/${r.chainId}/status`),
      ...(account ? [`  curl '${api}/indexer/account/v1/${account}/txs?pagination.limit=5'`] : []),
      `  open ${api}/`,
      '',
    ].join('\n'),
  );
}
