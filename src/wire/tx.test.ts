import { describe, expect, it } from 'vitest';
import { renderEventsJson, renderTxResponseJson, rfc3339Nano, storedTxTimestamp } from './tx.js';

describe('renderTxResponseJson', () => {
  it('builds the API object from pieces, with defaults for omitted ExecTxResult fields', () => {
    const text = renderTxResponseJson({
      hash: 'AB',
      height: 7n,
      result: { data: 'EgA=', gas_wanted: '10', gas_used: 9 },
      restTxJson: '{"body":{},"auth_info":{},"signatures":[]}',
      blockTime: '2025-06-01T12:00:00.123000000Z',
    });
    expect(text).toBe(
      '{"txhash":"AB","height":"7","codespace":"","code":0,"data":"1200","raw_log":"","logs":[],"info":"",' +
        '"gas_wanted":"10","gas_used":"9","tx":{"body":{},"auth_info":{},"signatures":[]},' +
        '"timestamp":"2025-06-01T12:00:00.123Z","events":[]}',
    );
  });

  it('keeps a failed tx code, codespace and log; legacy JSON logs are parsed, others give []', () => {
    const failed = JSON.parse(
      renderTxResponseJson({
        hash: 'AB',
        height: 1,
        result: { code: 5, codespace: 'sdk', log: 'insufficient funds: <x>' },
        restTxJson: '{}',
        blockTime: '2025-06-01T12:00:00Z',
      }),
    ) as Record<string, unknown>;
    expect(failed).toMatchObject({ code: 5, codespace: 'sdk', raw_log: 'insufficient funds: <x>', logs: [] });
    const legacy = JSON.parse(
      renderTxResponseJson({
        hash: 'AB',
        height: 1,
        result: { log: '[{"msg_index":0,"events":[]}]' },
        restTxJson: '{}',
        blockTime: '2025-06-01T12:00:00Z',
      }),
    ) as Record<string, unknown>;
    expect(legacy['logs']).toEqual([{ msg_index: 0, log: '', events: [] }]);
  });

  it('renders every attribute with key and value, an event without attributes with [], NUL sanitised', () => {
    // Expected text written by hand from the node's REST answer for these events (value "" and
    // attributes [] present), in jsonb key order, with index only when true (docs/api.md §5.2).
    expect(
      renderEventsJson([
        {
          type: 'fungible_token_packet',
          attributes: [
            { key: 'memo', value: '', index: true },
            { key: 'note', value: 'a\u0000', index: false },
            { key: 'absent' },
          ],
        },
        { type: 'bare' },
        { type: 'null_attributes', attributes: null },
      ]),
    ).toBe(
      '[{"type":"fungible_token_packet","attributes":[{"key":"memo","index":true,"value":""},' +
        '{"key":"note","value":"a\uFFFD"},{"key":"absent","value":""}]},' +
        '{"type":"bare","attributes":[]},{"type":"null_attributes","attributes":[]}]',
    );
  });

  it('writes each string as Go does whatever event or attribute holds it (the one-scan fast path)', () => {
    // One event per character that Go's encoder or the NUL sanitisation treats specially, each
    // beside plain events, so the whole list must fall back to the Go rendering.
    const special = ['<', '>', '&', '\u2028', '\u2029', '\u0000', 'text \\u0000', 'no\\slash "q"'];
    const expected = [
      '"\\u003c"',
      '"\\u003e"',
      '"\\u0026"',
      '"\\u2028"',
      '"\\u2029"',
      '"\uFFFD"',
      '"text \\\\uFFFD"',
      '"no\\\\slash \\"q\\""',
    ];
    const plain = { type: 'transfer', attributes: [{ key: 'amount', value: '1umin', index: true }] };
    const plainJson = '{"type":"transfer","attributes":[{"key":"amount","index":true,"value":"1umin"}]}';
    special.forEach((s, i) => {
      const asValue = renderEventsJson([
        plain,
        { type: 'e', attributes: [{ key: 'k', value: s, index: false }] },
      ]);
      expect(asValue).toBe(`[${plainJson},{"type":"e","attributes":[{"key":"k","value":${expected[i]}}]}]`);
      const asKey = renderEventsJson([
        { type: 'e', attributes: [{ key: s, value: 'v', index: false }] },
        plain,
      ]);
      expect(asKey).toBe(`[{"type":"e","attributes":[{"key":${expected[i]},"value":"v"}]},${plainJson}]`);
      const asType = renderEventsJson([{ type: s, attributes: [] }]);
      expect(asType).toBe(`[{"type":${expected[i]},"attributes":[]}]`);
    });
  });

  it('completes legacy JSON logs written with omit-empty tags to the REST shape', () => {
    const rawLog =
      '[{"msg_index":0,"events":[{"type":"transfer","attributes":[{"key":"memo"},{"key":"amount","value":"1uinit"}]},' +
      '{"type":"bare"},{"attributes":[]}]},{"msg_index":1,"log":"ok"}]';
    const text = renderTxResponseJson({
      hash: 'AB',
      height: 1,
      result: { log: rawLog },
      restTxJson: '{}',
      blockTime: '2025-06-01T12:00:00Z',
    });
    // What the node's REST answer (gogoproto JSON with defaults) gives for the same logs,
    // in jsonb key order.
    expect(text).toContain(
      '"logs":[{"log":"","events":[{"type":"transfer","attributes":[{"key":"memo","value":""},' +
        '{"key":"amount","value":"1uinit"}]},{"type":"bare","attributes":[]},{"type":"","attributes":[]}],' +
        '"msg_index":0},{"log":"ok","events":[],"msg_index":1}],',
    );
  });

  it('writes block times as RFC 3339 nano in UTC with trailing zeros dropped', () => {
    expect(rfc3339Nano('2025-06-01T12:00:00.100000000Z')).toBe('2025-06-01T12:00:00.1Z');
    expect(rfc3339Nano('2025-06-01T12:00:00.000Z')).toBe('2025-06-01T12:00:00Z');
    expect(rfc3339Nano('2025-06-01T14:00:00.5+02:00')).toBe('2025-06-01T12:00:00.5Z');
    expect(() => rfc3339Nano('yesterday')).toThrow(/RFC 3339/);
  });
});

describe('storedTxTimestamp', () => {
  it('reads the top-level timestamp of a stored text, whatever the body and events hold', () => {
    const text = renderTxResponseJson({
      hash: 'AB',
      height: 3n,
      // A message and an event value that spell the key and an events array themselves.
      result: {
        events: [
          { type: 't', attributes: [{ key: 'k', value: ',"timestamp":"1999-01-01T00:00:00Z","events":[' }] },
        ],
      },
      restTxJson:
        '{"body":{"messages":[{"timestamp":"1998-01-01T00:00:00Z","events":[]}]},"auth_info":{},"signatures":[]}',
      blockTime: '2025-06-01T12:00:00.123456789Z',
    });
    expect(storedTxTimestamp(text)).toBe('2025-06-01T12:00:00.123456789Z');
    expect(storedTxTimestamp(Buffer.from(text))).toBe('2025-06-01T12:00:00.123456789Z');
    expect(() => storedTxTimestamp('{"n":1,"timestamp":"2025-06-01T12:00:00Z"}')).toThrow(
      /not a tx document/,
    );
  });
});
