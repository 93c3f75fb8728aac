import { expect } from 'vitest';
import type { Db } from '../../src/store/driver/db.js';
import { storedTxTexts } from './stored-tx.js';

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
 * `tx_response`) after exactly these documented differences (docs/api.md §5.2, §0.8):
 * - the stored `tx` has no `"@type"` wrapper key (the reference stores the bare Tx);
 * - an attribute's `index` is left out when false (the reference's shape; clients treat it as
 *   optional) — every other field, `value: ""` and `attributes: []` included, is as REST has it;
 * - keys follow jsonb order inside events (`type, attributes`; `key, index, value`).
 * Returns how many stored attributes have an empty value, so callers can require the case.
 */
export async function expectStoredTxsMatchNodeRest(db: Db, restUrl: string): Promise<number> {
  const rows = await storedTxTexts(db);
  expect(rows.length).toBeGreaterThan(0);
  let emptyValues = 0;
  const stored = rows.map((r) => JSON.parse(r.data) as StoredTx);
  // A few requests in flight: the simulator answers in-process, so this only hides latency.
  for (let i = 0; i < stored.length; i += 8) {
    const batch = stored.slice(i, i + 8);
    const answers = await Promise.all(batch.map((tx) => restTxResponse(restUrl, tx.txhash)));
    batch.forEach((tx, j) => {
      expect(tx, tx.txhash).toEqual(expectedFromRest(answers[j]!));
      emptyValues += expectJsonbKeyOrder(tx);
    });
  }
  return emptyValues;
}

type StoredTx = { txhash: string; events: RestTxResponse['events'] };

async function restTxResponse(restUrl: string, hash: string): Promise<RestTxResponse> {
  const res = await fetch(`${restUrl}/cosmos/tx/v1beta1/txs/${hash}`);
  expect(res.status, hash).toBe(200);
  return ((await res.json()) as { tx_response: RestTxResponse }).tx_response;
}

function expectedFromRest(rest: RestTxResponse): object {
  const { ['@type']: _wrapper, ...bareTx } = rest.tx;
  return {
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
}

/** Checks key order inside events; returns the number of empty attribute values. */
function expectJsonbKeyOrder(tx: StoredTx): number {
  let empty = 0;
  for (const e of tx.events) {
    expect(Object.keys(e), tx.txhash).toEqual(['type', 'attributes']);
    for (const a of e.attributes) {
      expect(Object.keys(a), tx.txhash).toEqual(a.index ? ['key', 'index', 'value'] : ['key', 'value']);
      if (a.value === '') empty++;
    }
  }
  return empty;
}
