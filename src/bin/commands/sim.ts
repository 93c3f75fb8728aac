import type { Command } from 'commander';
import { createLogger } from '../../shared/logger.js';
import { loadSimOptions, SIM_DEFAULTS, type SimCommandOptions } from '../../sim/options.js';
import { createSimulator } from '../../sim/simulator.js';
import type { Simulator, SimulatorOptions } from '../../sim/types.js';
import { createVipSimExtension } from '../../sim/vip/mount.js';

export function registerSim(program: Command): void {
  program
    .command('sim')
    .description('Run the deterministic rollup simulator (CometBFT RPC, Cosmos REST, EVM JSON-RPC)')
    .requiredOption('--vm <vm>', 'move | wasm | evm')
    .option('--chain-id <id>', 'chain id (default mini<vm>-1)')
    .option('--seed <n>', `workload seed (default ${SIM_DEFAULTS.seed})`)
    .option('--host <host>', `listen host (default ${SIM_DEFAULTS.host})`)
    .option('--rpc-port <port>', `CometBFT RPC port, 0 = any free port (default ${SIM_DEFAULTS.rpcPort})`)
    .option('--rest-port <port>', `Cosmos REST port (default ${SIM_DEFAULTS.restPort})`)
    .option('--json-rpc-port <port>', `EVM JSON-RPC port, --vm evm (default ${SIM_DEFAULTS.jsonRpcPort})`)
    .option('--head <height>', 'fixed head height (default 1000)')
    .option('--live', 'advance the head with wall time')
    .option('--lowest-height <h>', 'serve heights from h on, like a state-synced or pruned node')
    .option(
      '--keep-blocks <n>',
      'keep only the last n blocks, like a pruned node (the lowest moves with the head)',
    )
    .option('--lag-blocks <k>', "serve the head k blocks behind the chain's, like a lagging node")
    .option(
      '--upgrade-height <h>',
      'from height h on, some txs carry a message type no indexer release knows (REST fails them)',
    )
    .option('--upgrade-every <n>', 'with --upgrade-height: one tx in n carries it (default 3)')
    .option('--block-time-ms <ms>', `block interval (default ${SIM_DEFAULTS.blockTimeMs})`)
    .option('--txs-per-block <spec>', 'txs per block: N or MIN-MAX (default 0-6)')
    .option(
      '--faults <spec>',
      'fault rates, e.g. 5xx=0.05,429=0.02,timeout=0.01,latency=20,reset=0.01,lag=2,shortpage=0.1,pruned=100',
    )
    .option('--replay <dir>', 'build the chain from recorded REST tx_response JSON files')
    .option('--accounts <n>', 'size of the user keyring (default 64; fewer make busier accounts)')
    .option(
      '--keyring-seed <n>',
      'seed of the user keyring (default: --seed); rollups of one keyring seed share their users',
    )
    .option(
      '--nft-share <share>',
      'share of txs that are NFT operations, a multiple of 0.05 in (0, 1] (default 0.2)',
    )
    .option('--fast-signatures', 'skip real signing (signatures are unique but do not verify)')
    .option(
      '--vip',
      'serve the VIP chain model (score contracts, broadcast, simulate) and an L1 vip::ModuleStore',
    )
    .action(async (flags: Record<string, unknown>) => {
      const options = loadSimOptions(flags);
      const sim = createSimulator(simulatorOptions(options));
      const urls = await sim.listen();
      const parts = [`rpc=${urls.rpc}`, `rest=${urls.rest}`, `json-rpc=${urls.jsonRpc ?? '-'}`];
      console.log(`sim ready ${parts.join(' ')} ${describeMode(sim, options).join(' ')}`);
      await new Promise<void>((resolve) => {
        const stop = (): void => resolve();
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
      await sim.close();
    });
}

/** The command's options with its logger and, with --vip, the VIP chain model mounted. */
function simulatorOptions(options: SimCommandOptions): SimulatorOptions {
  const { vip, ...simulator } = options;
  const extension = vip
    ? createVipSimExtension({ vm: options.vm, chainId: options.chainId ?? `mini${options.vm}-1` }).extension
    : undefined;
  return {
    ...simulator,
    logger: createLogger({ level: 'warn', format: 'json', name: 'sim' }),
    ...(extension ? { extensions: [extension] } : {}),
  };
}

/** The `sim ready` line's description of what runs (scripts read it). */
function describeMode(sim: Simulator, options: SimCommandOptions): string[] {
  return [
    `vm=${sim.options.vm}`,
    `chain-id=${sim.options.chainId}`,
    `seed=${sim.options.seed}`,
    `head=${sim.head()}${options.live ? ' (live)' : ''}`,
    `signatures=${options.fastSignatures ? 'fast (do not verify)' : 'real'}`,
    ...(options.replay !== undefined ? [`replay=${options.replay}`] : []),
    ...(options.nftShare !== undefined ? [`nft-share=${options.nftShare}`] : []),
    ...(options.keyringSeed !== undefined ? [`keyring-seed=${options.keyringSeed}`] : []),
    ...(options.faults !== undefined ? [`faults=${options.faults}`] : []),
    ...(options.upgrade ? [`upgrade-height=${options.upgrade.height}`] : []),
  ];
}
