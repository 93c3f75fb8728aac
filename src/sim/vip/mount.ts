import type { SimExtension, VmType } from '../types.js';
import { createVipChain, type VipChain } from './chain.js';
import { createVipExtension } from './extension.js';

/** Testnet VIP package address (docs/vip-contracts.md §3), used by the L1 mode by default. */
export const TESTNET_VIP_PACKAGE = '0xe55cc823efb411bed5eed25aca5277229a54c62ab3769005f86cc44bc0c0e5ab';

export interface VipSimOptions {
  vm: VmType;
  chainId: string;
  /** L1 stage length in seconds for the served `vip::ModuleStore` (default 1209600 = 2 weeks). */
  l1StageSeconds?: number;
  l1InitialStage?: bigint;
  now?: () => number;
}

/**
 * What `rollup-indexer sim --vip` mounts: the VIP chain model of the rollup (Move/Wasm score
 * contracts, accounts auto-funded) plus an L1 `vip::ModuleStore` whose stage advances with time.
 */
export function createVipSimExtension(options: VipSimOptions): { chain: VipChain; extension: SimExtension } {
  const now = options.now ?? Date.now;
  const chain = createVipChain({
    chainId: options.chainId,
    vm: options.vm,
    autoFund: true,
    now,
    l1: {
      packageAddress: TESTNET_VIP_PACKAGE,
      initialStage: options.l1InitialStage ?? 1n,
      stageIntervalSec: options.l1StageSeconds ?? 1_209_600,
      genesisTimeMs: now(),
    },
  });
  return { chain, extension: createVipExtension(chain) };
}
