import { describe, expect, it } from 'vitest';
import type { AbciEvent } from '../../src/ingest/decode/accounts.js';
import { jsonbText } from '../../src/ingest/decode/json-text.js';
import { renderTxResponseJson, type TxResponseParts } from '../../src/ingest/decode/tx-response.js';
import type { Db } from '../../src/store/driver/db.js';
import { migrate } from '../../src/store/migrations/migrate.js';
import { createBlockWriter } from '../../src/store/writers/block-writer.js';
import type { TxRow } from '../../src/store/writers/rows.js';
import { testDbFactories } from '../helpers/db.js';
import { loadRealTxSamples, type RealTxResponse } from '../fixtures/decode/samples.js';

const MIGRATION = '20261126_0009_event_attribute_values.sql';

/**
 * Events as the reference (and this indexer before decision 8) wrote them: Go's encoder with
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

interface Case {
  name: string;
  old: string;
  expected: string;
}

function cases(): Case[] {
  const out: Case[] = loadRealTxSamples().map(({ id, response }) => {
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

function txRow(c: Case, i: number): TxRow {
  const signer = Buffer.alloc(20, 1);
  return {
    hash: Buffer.alloc(32, i),
    height: 1,
    signer,
    accounts: [signer],
    msgTypes: ['x.Msg'],
    data: c.old,
  };
}

describe.each(testDbFactories())('migration completing event attributes on $name', (factory) => {
  it('rewrites old-form events to the renderer output, and nothing else', async () => {
    const all = cases();
    // The real samples include empty values (IBC memos, fees), so rows really change.
    expect(all.filter((c) => c.old !== c.expected).length).toBeGreaterThanOrEqual(8);
    const { db, dispose } = await factory.create();
    try {
      // The migration only rewrites data, so a fully migrated database that forgets it was
      // applied is a database from before it (and much faster to get than a partial migrate).
      await db.query('DELETE FROM schema_migrations WHERE name = $1', [MIGRATION]);
      const writer = await createBlockWriter(db);
      await writer.write([
        {
          block: {
            height: 1,
            hash: Buffer.alloc(32, 9),
            timestamp: '2025-06-01T12:00:00Z',
            blockTimeMs: 1000,
            proposer: 'initvaloper1x',
            gasUsed: '0',
            gasWanted: '0',
            txCount: all.length,
            totalFee: '[]',
          },
          txs: all.map(txRow),
          evmTxs: [],
        },
      ]);
      const versionsBefore = await rowVersions(db);

      expect((await migrate(db)).applied).toEqual([MIGRATION]);

      const { rows } = await db.query<{ sequence: number; data: string }>(
        'SELECT sequence, data FROM tx ORDER BY sequence',
      );
      const versionsAfter = await rowVersions(db);
      rows.forEach((row, i) => {
        const c = all[i]!;
        expect(row.data, c.name).toBe(c.expected);
        // Rows already complete keep their row version: the UPDATE did not touch them.
        if (c.old === c.expected)
          expect(versionsAfter.get(row.sequence), c.name).toBe(versionsBefore.get(row.sequence));
      });
    } finally {
      await dispose();
    }
  });
});

async function rowVersions(db: Db): Promise<Map<number, string>> {
  const { rows } = await db.query<{ sequence: number; v: string }>(
    'SELECT sequence, ctid::text AS v FROM tx',
  );
  return new Map(rows.map((r) => [Number(r.sequence), r.v]));
}
