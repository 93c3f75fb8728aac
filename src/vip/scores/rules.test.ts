import { describe, expect, it } from 'vitest';
import { parseRules } from './rules.js';

const VALID = `version: 1
metrics:
  - name: signed
    kind: txs_signed
    weight: 1
  - name: fees
    kind: fees_paid
    denom: uinit
    weight: "0.000001"
  - name: swaps
    kind: msg_txs
    msg_types: ["/initia.move.v1.MsgExecute"]
    move: { module_address: "0x1", module_name: dex, function: swap }
    weight: 5
  - name: calls
    kind: evm_txs_to
    contract: "0xABCDEFabcdefABCDEFabcdefABCDEFabcdefABCD"
    selector: "0xA9059CBB"
    weight: 0.10
cap: "1000000"
minimum: 10
exclude: ["init1abc"]
exclude_operator: true
rounding: round_half_up
`;

/** The rule text with one line replaced (1-based). */
const withLine = (n: number, line: string) =>
  VALID.split('\n')
    .map((l, i) => (i === n - 1 ? line : l))
    .join('\n');

describe('rules loader', () => {
  it('reads every field, keeping decimals exact and type URLs without the slash', () => {
    const r = parseRules(VALID, 'rules.yaml');
    expect(r.metrics.map((m) => [m.name, m.kind, m.weight.text])).toEqual([
      ['signed', 'txs_signed', '1'],
      ['fees', 'fees_paid', '0.000001'],
      ['swaps', 'msg_txs', '5'],
      ['calls', 'evm_txs_to', '0.1'],
    ]);
    expect(r.metrics[1]?.weight.scaled).toBe(10n ** 12n);
    expect(r.metrics[2]).toMatchObject({
      msgTypes: ['initia.move.v1.MsgExecute'],
      move: { moduleAddress: '0x1', moduleName: 'dex', function: 'swap' },
    });
    expect(r.metrics[3]).toMatchObject({
      contract: '0xabcdefabcdefabcdefabcdefabcdefabcdefabcd',
      selector: '0xa9059cbb',
    });
    expect(r).toMatchObject({
      cap: 1000000n,
      minimum: { text: '10' },
      exclude: ['init1abc'],
      excludeOperator: true,
      rounding: 'round_half_up',
    });
  });

  it('reads the same rules from JSON', () => {
    const json = JSON.stringify(
      { version: 1, metrics: [{ name: 'a', kind: 'gas_used', weight: '0.5' }] },
      null,
      2,
    );
    expect(parseRules(json, 'rules.json').metrics[0]?.weight.text).toBe('0.5');
  });

  const cases: [string, string, RegExp][] = [
    ['unknown top key', `${VALID}colour: red\n`, /^rules\.yaml:25: colour: unknown key/],
    [
      'negative weight',
      withLine(5, '    weight: -1'),
      /^rules\.yaml:5: metrics\[0\]\.weight: must be a decimal >= 0/,
    ],
    [
      '19 fractional digits',
      withLine(9, '    weight: "0.0000000000000000001"'),
      /^rules\.yaml:9: metrics\[1\]\.weight: /,
    ],
    ['bad kind', withLine(4, '    kind: tx_signed'), /^rules\.yaml:4: metrics\[0\]\.kind: must be one of/],
    ['bad name', withLine(3, '  - name: Signed'), /^rules\.yaml:3: metrics\[0\]\.name: must match/],
    [
      'key of another kind',
      withLine(8, '    selector: "0x12345678"'),
      /^rules\.yaml:8: metrics\[1\]\.selector: not allowed for kind fees_paid/,
    ],
    [
      'short contract',
      withLine(17, '    contract: "0xabc"'),
      /^rules\.yaml:17: metrics\[3\]\.contract: must be 0x and 40 hex digits/,
    ],
    [
      'bad rounding',
      withLine(24, 'rounding: nearest'),
      /^rules\.yaml:24: rounding: must be floor, round_half_up or ceil/,
    ],
    ['negative cap', withLine(20, 'cap: "-5"'), /^rules\.yaml:20: cap: must be a decimal >= 0/],
    ['duplicate key', withLine(8, '    weight: 2'), /^rules\.yaml:\d+: \(file\): Map keys must be unique/],
    ['denom absent', withLine(8, '    # no denom'), /^rules\.yaml:6: metrics\[1\]\.denom: must be a denom/],
    [
      'exclude_operator text',
      withLine(23, 'exclude_operator: "yes"'),
      /^rules\.yaml:23: exclude_operator: must be true or false/,
    ],
    [
      'YAML syntax',
      withLine(12, '    msg_types: ["/initia.move.v1.MsgExecute"'),
      /^rules\.yaml:1[23]: \(file\): /,
    ],
  ];

  it.each(cases)('names the line and the field: %s', (_what, text, message) => {
    let thrown: unknown;
    try {
      parseRules(text, 'rules.yaml');
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toMatchObject({ code: 'invalid_rules' });
    expect((thrown as Error).message).toMatch(message);
  });

  it('refuses a duplicate metric name at its line', () => {
    expect(() => parseRules(withLine(6, '  - name: signed'), 'r.yaml')).toThrow(
      /^r\.yaml:6: metrics\[1\]\.name: duplicate name "signed"/,
    );
  });

  it('needs at least one metric and version 1', () => {
    expect(() => parseRules('version: 1\nmetrics: []\n', 'r.yaml')).toThrow(
      /^r\.yaml:2: metrics: needs at least one metric/,
    );
    expect(() => parseRules('version: 2\nmetrics: []\n', 'r.yaml')).toThrow(/^r\.yaml:1: version: must be 1/);
  });
});
