import { describe, expect, it } from 'vitest';
import type { TxTrace } from '../../node/evm.js';
import { AppError } from '../../shared/errors.js';
import { evenHex } from '../../wire/evm-internal-tx.js';
import { flattenBlockTraces } from './internal-txs.js';

const A = '0x' + 'a1'.repeat(20);
const B = '0x' + 'b2'.repeat(20);
const C = '0x' + 'C3'.repeat(20); // checksummed case is normalised
const D = '0x' + 'd4'.repeat(20);
const E = '0x' + 'e5'.repeat(20);
const HASH = '0x' + '9f'.repeat(32);

const call = (type: string, from: string, to: string, calls?: TxTrace['result'][]) => ({
  type,
  from,
  to,
  value: '0x0',
  gas: '0x186a0',
  gasUsed: '0x5208',
  input: '0xa9059cbb',
  output: '0x01',
  ...(calls ? { calls: calls as NonNullable<TxTrace['result']>[] } : {}),
});

describe('flattenBlockTraces', () => {
  it("numbers frames depth-first as docs/ingest.md §8.2's example", () => {
    const trace: TxTrace = {
      txHash: HASH,
      result: call('CALL', A, B, [
        call('CALL', B, C, [call('STATICCALL', C, D)]),
        call('DELEGATECALL', A, E),
      ]),
    };
    const rows = flattenBlockTraces(7, [trace], 'init');
    const json = rows.map((r) => JSON.parse(r.data) as Record<string, unknown>);
    expect(json.map((j) => [j.index, j.parent_index, j.type])).toEqual([
      [0, -1, 'CALL'],
      [1, 0, 'CALL'],
      [2, 1, 'STATICCALL'],
      [3, 0, 'DELEGATECALL'],
    ]);
    expect(Object.keys(json[0]!)).toEqual([
      'height',
      'hash',
      'parent_index',
      'index',
      'type',
      'from',
      'to',
      'input',
      'output',
      'value',
      'gas',
      'gasUsed',
    ]);
    expect(json[0]).toMatchObject({ height: 7, hash: HASH, from: A, to: B, output: '0x', value: '0x00' });
    expect(json[1]).toMatchObject({
      to: C.toLowerCase(),
      output: '0x01',
      gas: '0x0186a0',
      gasUsed: '0x5208',
    });
    expect(rows[2]!.accounts.map((a) => '0x' + Buffer.from(a).toString('hex'))).toEqual([C.toLowerCase(), D]);
  });

  it('keeps a reverted frame, edges a self-call once, and fails the height on a tx the node did not trace', () => {
    const rows = flattenBlockTraces(
      3,
      [
        {
          txHash: HASH.replace('9f', '01'),
          result: { ...call('CALL', A, A), error: 'execution reverted', revertReason: 'too low' },
        },
      ],
      'init',
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.accounts).toHaveLength(1);
    // The failure is kept beside the JSON, which keeps docs/api.md §5.4's keys only.
    expect(rows[0]).toMatchObject({ error: 'execution reverted', revertReason: 'too low' });
    expect(JSON.parse(rows[0]!.data)).not.toHaveProperty('error');
    // A tx-level error (tracer timeout) is a failed trace, not "no frames": retryable, naming both.
    const failed = (() => {
      try {
        flattenBlockTraces(
          3,
          [{ txHash: HASH.toUpperCase().replace('0X', '0x'), error: 'execution timeout' }],
          'init',
        );
      } catch (err) {
        return err;
      }
    })();
    expect(failed).toBeInstanceOf(AppError);
    expect(failed).toMatchObject({
      code: 'trace_tx_failed',
      retryable: true,
      message: `debug_traceBlockByNumber 3: tx ${HASH} was not traced: execution timeout`,
    });
    // An entry with neither a result nor an error is malformed, and not retried.
    expect(() => flattenBlockTraces(3, [{ txHash: HASH }], 'init')).toThrow(
      expect.objectContaining({ code: 'malformed_trace', retryable: false }),
    );
  });

  it('fails the height on an address that does not normalise', () => {
    expect(() =>
      flattenBlockTraces(3, [{ txHash: HASH, result: call('CALL', A, '0x' + 'f'.repeat(70)) }], 'init'),
    ).toThrow(/invalid address/);
  });

  it('stores byte fields as even-length lower-case hex', () => {
    expect([evenHex(undefined), evenHex('0x'), evenHex('0x0'), evenHex('0x100'), evenHex('0xABCD')]).toEqual([
      '0x',
      '0x',
      '0x00',
      '0x0100',
      '0xabcd',
    ]);
  });
});
