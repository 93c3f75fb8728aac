import { expect } from 'vitest';
import type { Db } from '../../src/store/db.js';

interface RestAttribute {
  key: string;
  value: string;
  index: boolean;
}
interface RestTxResponse {
  tx: Record<string, unknown>;
  events: Array<{ type: string; attributes: RestAttribute[] }>;
  [field: string]: unknown;
}

/**
 * Every stored tx JSON equals the node's own REST answer (`/cosmos/tx/v1beta1/txs/{hash}`
 * `tx_response`) after exactly these documented differences (spec/api.md §5.2, decision 8):
 * - the stored `tx` has no `"@type"` wrapper key (the reference stores the bare Tx);
 * - an attribute's `index` is left out when false (the reference's shape; clients treat it as
 *   optional) — every other field, `value: ""` and `attributes: []` included, is as REST has it;
 * - keys follow jsonb order inside events (`type, attributes`; `key, index, value`).
 * Returns how many stored attributes have an empty value, so callers can require the case.
 */
export async function expectStoredTxsMatchNodeRest(db: Db, restUrl: string): Promise<number> {
  const { rows } = await db.query<{ data: string }>('SELECT data FROM tx ORDER BY sequence');
  expect(rows.length).toBeGreaterThan(0);
  let emptyValues = 0;
  for (const row of rows) {
    const stored = JSON.parse(row.data) as { txhash: string; events: RestTxResponse['events'] };
    const res = await fetch(`${restUrl}/cosmos/tx/v1beta1/txs/${stored.txhash}`);
    expect(res.status, stored.txhash).toBe(200);
    const rest = ((await res.json()) as { tx_response: RestTxResponse }).tx_response;
    const { ['@type']: _wrapper, ...bareTx } = rest.tx;
    const expected = {
      ...rest,
      tx: bareTx,
      events: rest.events.map((e) => ({
        type: e.type,
        attributes: e.attributes.map((a) => ({
          key: a.key,
          ...(a.index ? { index: true } : {}),
          value: a.value,
        })),
      })),
    };
    expect(stored, stored.txhash).toEqual(expected);
    for (const e of stored.events) {
      expect(Object.keys(e), stored.txhash).toEqual(['type', 'attributes']);
      for (const a of e.attributes) {
        expect(Object.keys(a), stored.txhash).toEqual(a.index ? ['key', 'index', 'value'] : ['key', 'value']);
        if (a.value === '') emptyValues++;
      }
    }
  }
  return emptyValues;
}
