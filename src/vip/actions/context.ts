import type { Logger } from '../../shared/logger.js';
import type { SendOptions } from '../send.js';
import type { VipBackend } from '../types.js';

export interface ActionContext {
  backend: VipBackend;
  logger: Logger;
  send: Omit<SendOptions, 'logger' | 'onSigned'>;
  /** Plan (simulate) and print, never sign. */
  dryRun: boolean;
  /** Human/machine output (one JSON object per call). */
  out: (record: Record<string, unknown>) => void;
  /** Identifies the contract in progress files (address or module address). */
  contractId: string;
  limits: { maxTxGas: bigint; maxTxBytes: number; gasAdjustment: number; maxBatch?: number };
}

/** Approximate encoded bytes per score entry per VM (docs/vip-contracts.md §5.6), to respect max_tx_bytes. */
export const BYTES_PER_ENTRY = { evm: 64, move: 42, wasm: 80 } as const;
