import type { PaginationJson } from '../store/pagination.js';
import type { BlockRow } from '../store/readers/blocks.js';

/**
 * Response bodies are assembled as text: stored JSON (tx, receipt, fee list) is spliced in as is,
 * so key order and big numbers stay exactly as ingest rendered them (spec §5.2 TS notes).
 */
export function renderList(key: string, items: readonly string[], pagination: PaginationJson): string {
  return `{"${key}":[${items.join(',')}],"pagination":${JSON.stringify(pagination)}}`;
}

export function renderBlock(row: BlockRow, chainId: string): string {
  const head = JSON.stringify({
    chain_id: chainId,
    height: String(row.height),
    hash: row.hash,
    block_time: String(row.blockTimeMs),
    timestamp: row.timestamp,
    gas_used: String(row.gasUsed),
    gas_wanted: String(row.gasWanted),
    tx_count: String(row.txCount),
  });
  const proposer = JSON.stringify({ moniker: row.moniker, identity: '', operator_address: row.proposer });
  return `${head.slice(0, -1)},"total_fee":${row.totalFee},"proposer":${proposer}}`;
}
