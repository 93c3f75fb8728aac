import type { EvmLog } from './abi.js';
import type { EvmContracts } from './contracts.js';
import type { EthTx } from './ethtx.js';
import type { ModelContext } from '../common/context.js';
import type { NftPlanContext } from '../../chain/nft-lifecycle.js';

/** A callTracer frame. */
export interface EvmFrame {
  type: 'CALL' | 'CREATE' | 'STATICCALL';
  from: string;
  to: string;
  value: string;
  gas: string;
  gasUsed: string;
  input: string;
  output?: string;
  error?: string;
  calls?: EvmFrame[];
}

export interface TokenDelta {
  token: string;
  from: string;
  to: string;
  amount: bigint;
}

/** What the EVM surfaces need to know about one Cosmos tx. */
export interface EvmTxData {
  eth?: EthTx;
  gasPrice: bigint;
  status: 0 | 1;
  /** Logs of the message execution (an Ethereum tx's receipt logs). */
  msgLogs: EvmLog[];
  trace?: EvmFrame;
  transfers: TokenDelta[];
  /** Gas refund paid back to the sender after a successful Ethereum tx. */
  refund: bigint;
}

export interface EvmModelContext {
  model: ModelContext;
  contracts: EvmContracts;
  plan: NftPlanContext;
  chainId: bigint;
  fastSignatures: boolean;
  feeCollectorHex: string;
}
