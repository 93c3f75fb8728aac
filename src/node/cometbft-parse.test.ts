import { describe, expect, it } from 'vitest';
import { parseBlockBundle, parseEvents } from './cometbft-parse.js';

const block = (txs: string[]) => ({
  block_id: { hash: 'ab' },
  block: {
    header: { height: '7', time: '2026-01-01T00:00:00.5Z', chain_id: 'c', proposer_address: 'cd' },
    data: { txs },
  },
});

describe('parseEvents', () => {
  it('fills what omitempty left out, in place, and keeps every event and attribute', () => {
    const served = [
      { type: 'a', attributes: [{ key: 'k', value: 'v', index: true }, { key: 'only-key' }] },
      { type: 'b' },
      { type: 'c', attributes: null },
      {
        type: 'd',
        attributes: [
          { value: 'no-key', index: 'yes' },
          { key: 'k', value: null },
        ],
      },
    ];
    const events = parseEvents(served, 'events');
    expect(events).toEqual([
      {
        type: 'a',
        attributes: [
          { key: 'k', value: 'v', index: true },
          { key: 'only-key', value: '', index: false },
        ],
      },
      { type: 'b', attributes: [] },
      { type: 'c', attributes: [] },
      {
        type: 'd',
        attributes: [
          { key: '', value: 'no-key', index: false },
          { key: 'k', value: '', index: false },
        ],
      },
    ]);
    expect(events).toBe(served);
  });

  it('names the field that has the wrong type', () => {
    expect(() => parseEvents([{ type: 1 }], 'events')).toThrow('events[0].type is missing or not a string');
    expect(() => parseEvents([{ type: 't', attributes: {} }], 'events')).toThrow('events[0] is not an array');
    expect(() => parseEvents([{ type: 't', attributes: [{ key: 'k', value: 5 }] }], 'events')).toThrow(
      'events[0].attributes[0].value is missing or not a string',
    );
    expect(() => parseEvents([{ type: 't', attributes: ['x'] }], 'events')).toThrow(
      'events[0].attributes[0] is not an object',
    );
    expect(() => parseEvents({}, 'events')).toThrow('events is not an array');
  });
});

describe('parseBlockBundle', () => {
  it('parses the tx results and the finalize-block events of a block', () => {
    const raw = parseBlockBundle(7, block(['dHg=']), {
      txs_results: [{ code: 5, gas_used: 10, events: [{ type: 'x', attributes: [{ key: 'k' }] }] }],
      finalize_block_events: [{ type: 'f' }],
    });
    expect(raw.txResults).toEqual([
      {
        code: 5,
        codespace: '',
        log: '',
        info: '',
        data: '',
        gasWanted: '0',
        gasUsed: '10',
        events: [{ type: 'x', attributes: [{ key: 'k', value: '', index: false }] }],
      },
    ]);
    expect(raw.finalizeBlockEvents).toEqual([{ type: 'f', attributes: [] }]);
    expect(raw.hash).toBe('AB');
  });

  it('stops on a tx result whose events are malformed, naming the height and the tx', () => {
    expect(() =>
      parseBlockBundle(7, block(['dHg=']), {
        txs_results: [{ events: [{ type: 't', attributes: [{ key: 3 }] }] }],
      }),
    ).toThrow('height 7: txs_results[0].events[0].attributes[0].key is missing or not a string');
  });
});
