import { randomBytes } from 'node:crypto';
import { deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { TX_DICTIONARY_V1 } from './tx-dictionary-v1.js';
import { TX_DICTIONARY_VERSION, packByReusedDeflate, packTxText, unpackTxText } from './tx-packing.js';

/** The stored form as docs/ingest.md §9.2 defines it, by Node's one-shot deflate. */
function reference(text: string): Buffer {
  const body = deflateRawSync(text, { dictionary: Buffer.from(TX_DICTIONARY_V1, 'utf8') });
  return Buffer.concat([Buffer.of(TX_DICTIONARY_VERSION), body]);
}

const txLike = (i: number) =>
  JSON.stringify({
    height: String(1000 + i),
    txhash: randomBytes(32).toString('hex').toUpperCase(),
    logs: [],
    events: Array.from({ length: 1 + (i % 40) }, (_, k) => ({
      type: 'move',
      attributes: [
        { key: 'type_tag', value: '0x1::fungible_asset::DepositEvent' },
        { key: 'data', value: `{"store_addr":"0x${randomBytes(32).toString('hex')}","amount":"${i * k}"}` },
      ],
    })),
  });

describe('packTxText', () => {
  it('packs every text to the same bytes as a fresh deflate stream, text after text', () => {
    const texts = [
      '',
      '{}',
      'ünïcødé ✓ \u0000 text',
      ...Array.from({ length: 60 }, (_, i) => txLike(i)),
      // Incompressible and larger than any tx text: stored blocks, the deflate bound's worst case.
      randomBytes(300_000).toString('base64'),
      txLike(61),
    ];
    for (const text of texts) {
      // The reused stream packs each of them itself (no fallback), text after text.
      expect(packByReusedDeflate(text)?.equals(reference(text))).toBe(true);
      const packed = packTxText(text);
      expect(packed.equals(reference(text))).toBe(true);
      expect(unpackTxText(packed).toString('utf8')).toBe(text);
    }
  });

  it('returns a buffer of its own', () => {
    const packed = packTxText(txLike(1));
    expect(packed.byteOffset).toBe(0);
    expect(packed.buffer.byteLength).toBe(packed.length);
  });
});
