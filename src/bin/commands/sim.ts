import type { Command } from 'commander';
import { InputError } from '../../shared/errors.js';
import { createLogger } from '../../shared/logger.js';
import { createSimulator } from '../../sim/simulator.js';
import { createVipSimExtension } from '../../sim/vip/mount.js';
import type { SimulatorOptions, VmType } from '../../sim/types.js';

function intOption(name: string): (value: string) => number {
  return (value) => {
    if (!/^\d+$/.test(value))
      throw new InputError('invalid_option', `--${name} must be a non-negative integer, got "${value}"`);
    return Number(value);
  };
}

interface SimFlags {
  vm: string;
  chainId?: string;
  seed: number;
  host: string;
  rpcPort: number;
  restPort: number;
  jsonRpcPort: number;
  head?: number;
  live?: boolean;
  blockTimeMs: number;
  txsPerBlock?: string;
  faults?: string;
  replay?: string;
  fastSignatures?: boolean;
  accounts?: number;
  nftShare?: number;
  vip?: boolean;
}

export function registerSim(program: Command): void {
  program
    .command('sim')
    .description('Run the deterministic rollup simulator (CometBFT RPC, Cosmos REST, EVM JSON-RPC)')
    .requiredOption('--vm <vm>', 'move | wasm | evm')
    .option('--chain-id <id>', 'chain id (default mini<vm>-1)')
    .option('--seed <n>', 'workload seed', intOption('seed'), 1)
    .option('--host <host>', 'listen host', '127.0.0.1')
    .option('--rpc-port <port>', 'CometBFT RPC port (0 = any free port)', intOption('rpc-port'), 26657)
    .option('--rest-port <port>', 'Cosmos REST port', intOption('rest-port'), 1317)
    .option('--json-rpc-port <port>', 'EVM JSON-RPC port (--vm evm)', intOption('json-rpc-port'), 8545)
    .option('--head <height>', 'fixed head height (default 1000)', intOption('head'))
    .option('--live', 'advance the head with wall time')
    .option('--block-time-ms <ms>', 'block interval', intOption('block-time-ms'), 500)
    .option('--txs-per-block <spec>', 'txs per block: N or MIN-MAX (default 0-6)')
    .option(
      '--faults <spec>',
      'fault rates, e.g. 5xx=0.05,429=0.02,timeout=0.01,latency=20,reset=0.01,lag=2,shortpage=0.1,pruned=100',
    )
    .option('--replay <dir>', 'build the chain from recorded REST tx_response JSON files')
    .option(
      '--accounts <n>',
      'size of the user keyring (default 64; fewer make busier accounts)',
      intOption('accounts'),
    )
    .option(
      '--nft-share <share>',
      'share of txs that are NFT operations, a multiple of 0.05 in (0, 1] (default 0.2)',
      (value: string) => {
        if (!/^(0(\.\d+)?|1(\.0+)?)$/.test(value))
          throw new InputError('invalid_option', `--nft-share must be a number in (0, 1], got "${value}"`);
        return Number(value);
      },
    )
    .option('--fast-signatures', 'skip real signing (signatures are unique but do not verify)')
    .option(
      '--vip',
      'serve the VIP chain model (score contracts, broadcast, simulate) and an L1 vip::ModuleStore',
    )
    .action(async (flags: SimFlags) => {
      if (!['move', 'wasm', 'evm'].includes(flags.vm)) {
        throw new InputError('invalid_vm', `--vm must be move, wasm or evm, got "${flags.vm}"`);
      }
      const options: SimulatorOptions = {
        vm: flags.vm as VmType,
        seed: flags.seed,
        host: flags.host,
        rpcPort: flags.rpcPort,
        restPort: flags.restPort,
        jsonRpcPort: flags.jsonRpcPort,
        blockTimeMs: flags.blockTimeMs,
        logger: createLogger({ level: 'warn', format: 'json', name: 'sim' }),
        ...(flags.chainId !== undefined ? { chainId: flags.chainId } : {}),
        ...(flags.head !== undefined ? { head: flags.head } : {}),
        ...(flags.live ? { live: true } : {}),
        ...(flags.txsPerBlock !== undefined ? { txsPerBlock: flags.txsPerBlock } : {}),
        ...(flags.faults !== undefined ? { faults: flags.faults } : {}),
        ...(flags.replay !== undefined ? { replay: flags.replay } : {}),
        ...(flags.fastSignatures ? { fastSignatures: true } : {}),
        ...(flags.accounts !== undefined ? { accounts: flags.accounts } : {}),
        ...(flags.nftShare !== undefined ? { nftShare: flags.nftShare } : {}),
        ...(flags.vip
          ? {
              extensions: [
                createVipSimExtension({
                  vm: flags.vm as VmType,
                  chainId: flags.chainId ?? `mini${flags.vm}-1`,
                }).extension,
              ],
            }
          : {}),
      };
      const sim = createSimulator(options);
      const urls = await sim.listen();
      const parts = [`rpc=${urls.rpc}`, `rest=${urls.rest}`, `json-rpc=${urls.jsonRpc ?? '-'}`];
      const mode = [
        `vm=${sim.options.vm}`,
        `chain-id=${sim.options.chainId}`,
        `seed=${sim.options.seed}`,
        `head=${sim.head()}${flags.live ? ' (live)' : ''}`,
        `signatures=${flags.fastSignatures ? 'fast (do not verify)' : 'real'}`,
        ...(flags.replay !== undefined ? [`replay=${flags.replay}`] : []),
        ...(flags.nftShare !== undefined ? [`nft-share=${flags.nftShare}`] : []),
        ...(flags.faults !== undefined ? [`faults=${flags.faults}`] : []),
      ];
      console.log(`sim ready ${parts.join(' ')} ${mode.join(' ')}`);
      await new Promise<void>((resolve) => {
        const stop = (): void => resolve();
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
      await sim.close();
    });
}
