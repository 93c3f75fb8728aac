import type { AbciEvent } from '../../src/ingest/decode/accounts.js';
import { jsonbText } from '../../src/wire/json-text.js';
import { renderTxResponseJson, type TxResponseParts } from '../../src/wire/tx.js';
import { loadRealTxSamples, type RealTxResponse } from '../fixtures/decode/samples.js';

/**
 * Stored tx texts in format 1 (events in the reference's omit-empty form, what migration 0009
 * converted and the re-render job converts now), each beside the text today's renderer writes for
 * the same tx (what a fresh ingest stores): real node samples and hand-written tricky ones.
 */

/**
 * Events as the reference (and this indexer before format 2) wrote them: Go's encoder with
 * omit-empty tags (no `value` when empty, no `index` when false, no `attributes` when none) and
 * its HTML escapes. Written here from that description, not with the code under test.
 */
function referenceEventsText(events: readonly AbciEvent[]): string {
  const go = (s: string) =>
    JSON.stringify(s).replace(
      /[<>&\u2028\u2029]/g,
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
    );
  const event = (e: AbciEvent) => {
    const attrs = e.attributes ?? [];
    if (attrs.length === 0) return `{"type":${go(e.type)}}`;
    const rendered = attrs.map(
      (a) =>
        `{"key":${go(a.key)}${a.index ? ',"index":true' : ''}${a.value ? `,"value":${go(a.value)}` : ''}}`,
    );
    return `{"type":${go(e.type)},"attributes":[${rendered.join(',')}]}`;
  };
  return `[${events.map(event).join(',')}]`;
}

function partsOfSample(r: RealTxResponse): TxResponseParts {
  const { ['@type']: _wrapper, ...tx } = r.tx;
  return {
    hash: r.txhash,
    height: r.height,
    result: {
      code: r.code,
      codespace: r.codespace,
      data: Buffer.from(r.data, 'hex').toString('base64'),
      log: r.raw_log,
      info: r.info,
      gas_wanted: r.gas_wanted,
      gas_used: r.gas_used,
      events: r.events,
    },
    restTxJson: jsonbText(tx),
    blockTime: r.timestamp,
  };
}

/**
 * A tx whose body holds what the migration must not touch: `{"key":"x"}` objects, an `"events":[`
 * key with a bare event, and strings quoting both; its events hold escaped quotes and backslashes
 * in keys and `{"key":"x"}` text in a value.
 */
const TRICKY_BODY =
  '{"body":{"memo":"{\\"key\\":\\"m\\"}","messages":[{"msg":{"key":"x","events":[{"type":"t"}],"attrs":[{"key":"y","index":true}]},' +
  '"@type":"/cosmwasm.wasm.v1.MsgExecuteContract"}]},"auth_info":{},"signatures":[]}';
const TRICKY_EVENTS: AbciEvent[] = [
  {
    type: 'wasm',
    attributes: [
      { key: 'a"key', value: '', index: true },
      { key: 'k\\', value: '' },
      { key: 'key', value: '{"key":"x"}', index: true },
      { key: 'memo', value: '' },
    ],
  },
  { type: 'bare"type' },
  { type: 'message', attributes: [{ key: 'sender', value: 'init1x', index: true }] },
];
/** The same events in the old form, written out by hand. */
const TRICKY_EVENTS_OLD =
  '[{"type":"wasm","attributes":[{"key":"a\\"key","index":true},{"key":"k\\\\"},' +
  '{"key":"key","index":true,"value":"{\\"key\\":\\"x\\"}"},{"key":"memo"}]},{"type":"bare\\"type"},' +
  '{"type":"message","attributes":[{"key":"sender","index":true,"value":"init1x"}]}]';

function trickyParts(events: AbciEvent[]): TxResponseParts {
  return {
    hash: 'AB',
    height: 1,
    result: { events },
    restTxJson: TRICKY_BODY,
    blockTime: '2025-06-01T12:00:00Z',
  };
}

export interface OldFormatTxCase {
  name: string;
  old: string;
  expected: string;
}

export function oldFormatTxCases(): OldFormatTxCase[] {
  const out: OldFormatTxCase[] = loadRealTxSamples().map(({ id, response }) => {
    const parts = partsOfSample(response);
    return {
      name: id,
      old: renderTxResponseJson({ ...parts, eventsJson: referenceEventsText(response.events) }),
      expected: renderTxResponseJson(parts),
    };
  });
  const tricky = trickyParts(TRICKY_EVENTS);
  out.push({
    name: 'tricky',
    old: renderTxResponseJson({ ...tricky, eventsJson: TRICKY_EVENTS_OLD }),
    expected: renderTxResponseJson(tricky),
  });
  // Complete events behind a body full of {"key":"x"}: the row must not be rewritten at all.
  const complete = renderTxResponseJson(trickyParts([TRICKY_EVENTS[2]!]));
  out.push({ name: 'complete', old: complete, expected: complete });
  return out;
}
