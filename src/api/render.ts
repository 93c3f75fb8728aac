import type { JsonText } from '../store/readers/stored-json.js';
import { listEnvelopeText, type Pagination } from '../wire/pagination.js';

/**
 * A list page as its parts: stored JSON (tx, receipt, fee list) is spliced in as is, so key order
 * and big numbers stay exactly as ingest rendered them (docs/api.md §5.2). The route layer
 * assembles it (jsonRoute), into memory it can reuse.
 */
export interface JsonList {
  head: string;
  items: readonly JsonText[];
  tail: string;
}

export function renderList(key: string, items: readonly JsonText[], pagination: Pagination): JsonList {
  return { ...listEnvelopeText(key, pagination), items };
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
