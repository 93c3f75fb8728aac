import { describe, expect, it } from 'vitest';
import { loadRealTxSamples, type RealTxResponse } from '../../../test/fixtures/decode/samples.js';
import { createProtoRegistry, type ProtoRegistry } from '../../shared/proto/registry.js';
import type { MessageSchema } from '../../shared/proto/schema.js';
import { newProblems, renderMessage, type JsonObject } from '../../shared/proto/render.js';
import { encodeTxFromRestJson } from '../../shared/proto/tx.js';
import { createTxDecoder } from './tx.js';

/**
 * What a tx stored undecoded is built from (docs/api.md §14): the walk of its raw bytes by a
 * registry that lacks its message types. On every real sample, an "older release" registry without
 * any of the samples' message types must still give the hash, signer, fee, signatures and message
 * type URLs the full registry gives, and write each message as {"@type", "value"} whose value is
 * the message's own bytes (rendered by the full registry, they give the decoded message back).
 */
const full = createProtoRegistry();
const samples = loadRealTxSamples().map(({ id, response }) => ({ id, bytes: txBytes(response) }));
const fullDecoder = createTxDecoder({ registry: full, prefix: 'init' });
const sampleTypes = new Set(samples.flatMap((s) => fullDecoder.decodeTx(s.bytes).msgTypes));
const hidden = (schema: MessageSchema | undefined) =>
  schema && sampleTypes.has(schema.fullName) ? undefined : schema;
const older: ProtoRegistry = {
  message: (name) => hidden(full.message(name)),
  byTypeUrl: (url) => hidden(full.byTypeUrl(url)),
};
const olderDecoder = createTxDecoder({ registry: older, prefix: 'init' });

function txBytes(response: RealTxResponse): Uint8Array {
  const { ['@type']: _wrapper, ...tx } = response.tx;
  return encodeTxFromRestJson(full, tx);
}

describe('the raw-bytes walk of txs whose types the registry lacks', () => {
  it('the older registry knows none of the samples’ message types', () => {
    expect(sampleTypes.size).toBeGreaterThan(10);
    for (const type of sampleTypes) expect(older.byTypeUrl(`/${type}`), type).toBeUndefined();
  });

  for (const { id, bytes } of samples) {
    it(id, () => {
      const known = fullDecoder.decodeTx(bytes);
      const walked = olderDecoder.decodeTx(bytes);
      expect(walked.unknownTypes.sort()).toEqual(known.msgTypes.map((t) => `/${t}`).sort());
      expect(walked.hash).toBe(known.hash);
      expect(walked.signer).toBe(known.signer);
      expect(walked.signerSource).toBe(known.signerSource);
      expect(walked.msgTypes).toEqual(known.msgTypes);
      expect(walked.fee).toEqual(known.fee);
      expect(walked.signatureKey).toBe(known.signatureKey);
      expect(walked.restTx.auth_info).toEqual(known.restTx.auth_info);
      const { messages, ...body } = walked.restTx.body as { messages: JsonObject[] };
      const { messages: knownMessages, ...knownBody } = known.restTx.body as { messages: JsonObject[] };
      expect(body).toEqual(knownBody);
      expect(messages.length).toBe(knownMessages.length);
      messages.forEach((message, i) => {
        const typeUrl = String(message['@type']);
        expect(Object.keys(message)).toEqual(['@type', 'value']);
        const value = Buffer.from(String(message['value']), 'base64');
        const fields = renderMessage(full, full.byTypeUrl(typeUrl)!, value, 0, value.length, newProblems());
        expect({ '@type': typeUrl, ...fields }).toEqual(knownMessages[i]);
      });
    });
  }
});
