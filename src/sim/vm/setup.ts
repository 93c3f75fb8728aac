import { toBech32, tryAccountBytes } from '../../shared/address.js';
import type { GeneratedBlock } from '../chain/blocks.js';
import type { Ledger } from '../chain/ledger.js';
import type { VmModel } from '../chain/plan.js';
import type { Outcome } from '../surfaces/jsonrpc.js';
import type { RestAnswer } from '../surfaces/rest/blocks.js';
import type { StateContext } from '../surfaces/rest/state.js';
import type { NftNaming } from '../truth/nft.js';
import type { HolderTruth, InternalTxTruth, SimHttpRequest } from '../types.js';
import type { ModelContext } from './common/context.js';

/** Everything one VM contributes: its tx model, NFT naming and VM-specific routes. */
export interface VmSetup {
  model: VmModel;
  naming: NftNaming;
  /** VM-specific REST state routes (answer undefined to pass). */
  rest?(req: SimHttpRequest): RestAnswer | undefined;
  /** EVM JSON-RPC (EVM only). */
  jsonRpc?(method: string, params: unknown): Outcome | undefined;
  holders?(denom: string, atHeight: number): HolderTruth[];
  /** Exact bank balance from the VM's ledger. */
  balanceOf?(address: string, denom: string, height: number): string | undefined;
  /** Bank denoms the address holds a non-zero balance of. */
  denomsOf?(address: string, height: number): string[];
  /** Accounts (0x hex) that exist at a height besides the keyring: those funds reached. */
  accountsAt?(height: number): string[];
  /** The bank's total supply of each denom at a height (zero supplies left out). */
  supplyAt?(height: number): Map<string, bigint>;
  /** Called for every generated block (e.g. to index Ethereum hashes). */
  onBlock?(block: GeneratedBlock): void;
  internalTxs?(evmTxHash: string): InternalTxTruth[];
}

export interface VmDeps {
  ctx: ModelContext;
  state: StateContext;
  head(): number;
  lastTxAt(height: number): number;
  /** Where to look for a hash not generated yet (most recent heights first). */
  recentHeights(): number[];
  /** The account fees end at when a block ends. */
  rewards: Uint8Array;
}

/** The bank-balance hooks of a VM whose ledger is keyed by bank denom and 0x hex account. */
export function bankBalanceHooks(
  ledger: Ledger,
  deps: VmDeps,
): Pick<VmSetup, 'balanceOf' | 'denomsOf' | 'holders' | 'accountsAt' | 'supplyAt'> {
  const { prefix } = deps.ctx;
  const hexOf = (address: string) => {
    const bytes = tryAccountBytes(address, prefix);
    return bytes ? '0x' + Buffer.from(bytes).toString('hex') : undefined;
  };
  return {
    balanceOf(address, denom, height) {
      const hex = hexOf(address);
      return hex === undefined ? undefined : ledger.balanceOf(denom, hex, deps.lastTxAt(height)).toString();
    },
    denomsOf(address, height) {
      const hex = hexOf(address);
      return hex === undefined ? [] : ledger.tokensOf(hex, deps.lastTxAt(height));
    },
    accountsAt: (height) => ledger.addresses(deps.lastTxAt(height)),
    supplyAt: (height) => ledger.supply(deps.lastTxAt(height)),
    holders: (denom, height) =>
      ledger.holders(denom, deps.lastTxAt(height)).map((x) => ({
        account: toBech32(Buffer.from(x.address.slice(2), 'hex'), prefix),
        amount: x.amount.toString(),
      })),
  };
}
