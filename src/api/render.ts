import type { PaginationJson } from '../store/pagination.js';
import type { BlockRow } from '../store/readers/blocks.js';
import type { JsonText } from '../store/readers/stored-json.js';

/**
 * A list page as its parts: stored JSON (tx, receipt, fee list) is spliced in as is, so key order
 * and big numbers stay exactly as ingest rendered them (spec §5.2 TS notes). The route layer
 * assembles it (jsonRoute), into memory it can reuse.
 */
export interface JsonList {
  head: string;
  items: readonly JsonText[];
  tail: string;
}

export function renderList(key: string, items: readonly JsonText[], pagination: PaginationJson): JsonList {
  return { head: `{"${key}":[`, items, tail: `],"pagination":${JSON.stringify(pagination)}}` };
}

/**
 * `head` + items joined by commas + `tail`, written straight into one Buffer from `alloc`. A 100-tx
 * page is ~0.7 MB: building it as a JS string would allocate a flat large-object-space string per
 * request (old-generation GC) and then encode it again for the socket; this copies each stored
 * text once (items that are already UTF-8 bytes are copied as they are).
 */
export function joinJson(
  { head, items, tail }: JsonList,
  alloc: (length: number) => Buffer = Buffer.allocUnsafe,
): Buffer {
  let length = Buffer.byteLength(head) + Buffer.byteLength(tail) + Math.max(0, items.length - 1);
  for (const item of items) length += typeof item === 'string' ? Buffer.byteLength(item) : item.length;
  const body = alloc(length);
  let offset = body.write(head);
  items.forEach((item, i) => {
    if (i > 0) offset = body.writeUInt8(0x2c, offset); // ','
    offset += typeof item === 'string' ? body.write(item, offset) : item.copy(body, offset);
  });
  body.write(tail, offset);
  return body;
}

/** Field order and string-typed numbers of spec §5.1; only the free-text fields need escaping. */
export function renderBlock(row: BlockRow, chainId: string): string {
  return (
    `{"chain_id":${JSON.stringify(chainId)},"height":"${row.height}","hash":"${row.hash}",` +
    `"block_time":"${row.blockTimeMs}","timestamp":"${row.timestamp}","gas_used":"${row.gasUsed}",` +
    `"gas_wanted":"${row.gasWanted}","tx_count":"${row.txCount}","total_fee":${row.totalFee},` +
    `"proposer":{"moniker":${JSON.stringify(row.moniker)},"identity":"",` +
    `"operator_address":${JSON.stringify(row.proposer)}}}`
  );
}
