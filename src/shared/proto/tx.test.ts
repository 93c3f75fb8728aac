import { describe, expect, it } from 'vitest';
import { handMadeRestTx, loadRealTxSamples, loadSignedTxs } from '../../../test/fixtures/decode/samples.js';
import { createProtoRegistry } from './registry.js';
import { encodeTxFromRestJson, renderRestTx } from './tx.js';
import { ProtoDecodeError } from './wire.js';

const registry = createProtoRegistry();

/**
 * Documented differences between a recorded REST answer and our rendering of the same bytes.
 * `protocols/ibc/nft-wasm#mockIbcNftSendWasm` is hand-edited upstream (txhash "IBCNFTSENDWASM…",
 * height 12345): it has no signer_infos and no `tip` key, which no gateway answer lacks.
 */
const HAND_EDITED_WITHOUT_TIP = new Set(['protocols/ibc/nft-wasm#mockIbcNftSendWasm']);

describe('renderRestTx / encodeTxFromRestJson on real REST samples', () => {
  const samples = loadRealTxSamples();

  it('finds the recorded samples', () => {
    expect(samples.length).toBeGreaterThanOrEqual(40);
  });

  for (const sample of samples) {
    it(`round-trips ${sample.id}`, () => {
      const { ['@type']: wrapper, ...want } = sample.response.tx;
      expect(wrapper).toBe('/cosmos.tx.v1beta1.Tx');
      const bytes = encodeTxFromRestJson(registry, want);
      const rendered = renderRestTx(registry, bytes);
      expect(rendered.unknownTypes).toEqual([]);
      expect(rendered.unknownFields).toEqual([]);
      const got = structuredClone(rendered.tx) as Record<string, unknown>;
      if (HAND_EDITED_WITHOUT_TIP.has(sample.id)) {
        expect((got['auth_info'] as Record<string, unknown>)['tip']).toBeNull();
        delete (got['auth_info'] as Record<string, unknown>)['tip'];
      }
      expect(got).toEqual(want);
      // Re-encoding the rendering gives the same bytes again.
      expect(Buffer.from(encodeTxFromRestJson(registry, rendered.tx))).toEqual(Buffer.from(bytes));
    });
  }
});

describe('initia.js-signed txs', () => {
  for (const sample of loadSignedTxs()) {
    it(`renders and re-encodes ${sample.name} byte-identically`, () => {
      const bytes = Buffer.from(sample.base64, 'base64');
      const rendered = renderRestTx(registry, bytes);
      expect(rendered.unknownTypes).toEqual([]);
      expect(rendered.unknownFields).toEqual([]);
      // initia.js toData() omits the defaults the gateway writes; everything else is equal.
      const body = rendered.tx.body;
      expect(body['extension_options']).toEqual([]);
      expect(body['non_critical_extension_options']).toEqual([]);
      expect(rendered.tx.auth_info['tip']).toBeNull();
      const trimmed = structuredClone(rendered.tx) as Record<string, Record<string, unknown>>;
      delete trimmed['body']?.['extension_options'];
      delete trimmed['body']?.['non_critical_extension_options'];
      delete trimmed['auth_info']?.['tip'];
      const messages = trimmed['body']?.['messages'] as Record<string, unknown>[];
      // minievm MsgCall.auth_list (EIP-7702) is newer than initia.js 1.1.0's toData().
      for (const msg of messages) if (msg['@type'] === '/minievm.evm.v1.MsgCall') delete msg['auth_list'];
      expect(trimmed).toEqual(sample.restJson);
      expect(Buffer.from(encodeTxFromRestJson(registry, rendered.tx))).toEqual(bytes);
    });
  }
});

describe('rendering rules', () => {
  it('writes an unknown enum value as a number (EVM sign mode 9999)', () => {
    const tx = handMadeRestTx({
      signer_infos: [{ public_key: null, mode_info: { single: { mode: 9999 } }, sequence: '1' }],
      fee: { amount: [], gas_limit: '1', payer: '', granter: '' },
      tip: null,
    });
    const rendered = renderRestTx(registry, encodeTxFromRestJson(registry, tx));
    expect(rendered.tx).toEqual(tx);
  });

  it('reports a message type the registry does not know, without guessing', () => {
    const tx = handMadeRestTx({ signer_infos: [], fee: null, tip: null }, [
      { '@type': '/example.v1.MsgUnknown', value: 'CgNmb28=' },
    ]);
    const rendered = renderRestTx(registry, encodeTxFromRestJson(registry, tx));
    expect(rendered.unknownTypes).toEqual(['/example.v1.MsgUnknown']);
    expect(rendered.tx.body['messages']).toEqual([{ '@type': '/example.v1.MsgUnknown', value: 'CgNmb28=' }]);
  });

  it('reports wire fields that no schema knows', () => {
    // TxBody with memo "x" and an unknown field #4 (SDK 0.53 `unordered`=true).
    const body = Buffer.from([0x12, 0x01, 0x78, 0x20, 0x01]);
    const raw = Buffer.concat([Buffer.from([0x0a, body.length]), body]);
    const rendered = renderRestTx(registry, raw);
    expect(rendered.unknownFields).toEqual(['cosmos.tx.v1beta1.TxBody#4']);
    expect(rendered.tx.body['memo']).toBe('x');
  });

  it('fails with a typed error on truncated or foreign bytes', () => {
    expect(() => renderRestTx(registry, Buffer.from([0x0a, 0x05, 0x01]))).toThrow(ProtoDecodeError);
    expect(() => renderRestTx(registry, Buffer.from('{"not":"protobuf"}'))).toThrow(ProtoDecodeError);
  });
});
