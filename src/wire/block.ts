import { Type } from '@sinclair/typebox';
import { listEnvelope } from './pagination.js';
import { ref } from './schema.js';

/**
 * The block document (docs/api.md, block.Block): rendered on each read from the block row (nothing
 * of it is stored as text but the fee list), keys in BLOCK_KEY_ORDER, numbers as strings.
 */

/** Version of the rendering (not stored: a change here needs no re-render of stored rows). */
export const BLOCK_FORMAT_VERSION = 1;

export const BLOCK_KEY_ORDER = [
  'chain_id',
  'height',
  'hash',
  'block_time',
  'timestamp',
  'gas_used',
  'gas_wanted',
  'tx_count',
  'total_fee',
  'proposer',
] as const;

const Coin = Type.Object({ denom: Type.String(), amount: Type.String() });

export const Block = Type.Object(
  {
    chain_id: Type.String(),
    height: Type.String(),
    hash: Type.String({ description: 'upper-case hex, no 0x' }),
    block_time: Type.String({ description: 'ms since the previous block' }),
    timestamp: Type.String({ description: 'RFC 3339, whole seconds' }),
    gas_used: Type.String(),
    gas_wanted: Type.String(),
    tx_count: Type.String(),
    total_fee: Type.Array(Coin),
    proposer: Type.Object({
      moniker: Type.String({ description: '"" when the validator is not known to the indexer' }),
      identity: Type.String(),
      operator_address: Type.String(),
    }),
  },
  { $id: 'block.Block' },
);
export const BlocksResponse = listEnvelope('block.BlocksResponse', 'blocks', 'block.Block');
export const BlockResponse = Type.Object({ block: ref('block.Block') }, { $id: 'block.BlockResponse' });

/** One block with everything its document needs, pre-formatted by SQL. */
export interface BlockValue {
  height: number;
  /** Upper-case hex, no 0x. */
  hash: string;
  blockTimeMs: number;
  /** RFC 3339, whole seconds, UTC 'Z'. */
  timestamp: string;
  gasUsed: number;
  gasWanted: number;
  txCount: number;
  /** JSON array text `[{"denom","amount"}]`. */
  totalFee: string;
  proposer: string;
  /** "" when no validator row exists for the proposer. */
  moniker: string;
}

/** Only the free-text fields need escaping: the others are digits, hex and stored JSON. */
export function renderBlock(block: BlockValue, chainId: string): string {
  return (
    `{"chain_id":${JSON.stringify(chainId)},"height":"${block.height}","hash":"${block.hash}",` +
    `"block_time":"${block.blockTimeMs}","timestamp":"${block.timestamp}","gas_used":"${block.gasUsed}",` +
    `"gas_wanted":"${block.gasWanted}","tx_count":"${block.txCount}","total_fee":${block.totalFee},` +
    `"proposer":{"moniker":${JSON.stringify(block.moniker)},"identity":"",` +
    `"operator_address":${JSON.stringify(block.proposer)}}}`
  );
}
