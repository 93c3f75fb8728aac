import { secp256k1 } from '@noble/curves/secp256k1.js';
import { AuthInfo, TxBody, TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import { PubKey } from 'cosmjs-types/cosmos/crypto/secp256k1/keys';
import { SignMode } from 'cosmjs-types/cosmos/tx/signing/v1beta1/signing';
import { describe, expect, it } from 'vitest';
import type { RestClient } from '../../node/rest.js';
import type { RawBlock } from '../../node/types.js';
import { createAccountBytesMemo, prepareBlock } from './block.js';
import { createIngestDecoder } from '../decode/ingest-decoder.js';

/** A genuinely encoded tx whose only message type no local registry knows. */
function unknownMessageTx() {
  const pub = secp256k1.getPublicKey(new Uint8Array(32).fill(7), true);
  const body = TxBody.encode(
    TxBody.fromPartial({
      messages: [{ typeUrl: '/acme.widget.v1.MsgSpin', value: Uint8Array.from([8, 1]) }],
    }),
  ).finish();
  const authInfo = AuthInfo.encode(
    AuthInfo.fromPartial({
      signerInfos: [
        {
          publicKey: {
            typeUrl: '/cosmos.crypto.secp256k1.PubKey',
            value: PubKey.encode({ key: pub }).finish(),
          },
          modeInfo: { single: { mode: SignMode.SIGN_MODE_DIRECT } },
          sequence: 3n,
        },
      ],
      fee: { amount: [{ denom: 'umin', amount: '150' }], gasLimit: 100_000n },
    }),
  ).finish();
  const signature = new Uint8Array(64).fill(9);
  const bytes = TxRaw.encode({ bodyBytes: body, authInfoBytes: authInfo, signatures: [signature] }).finish();
  return {
    base64: Buffer.from(bytes).toString('base64'),
    signature: Buffer.from(signature).toString('base64'),
  };
}

describe('prepareBlock REST fallback', () => {
  it('takes message types and JSON from REST for a tx holding an unknown message type, joined on signatures', async () => {
    const tx = unknownMessageTx();
    const restTx = {
      body: { messages: [{ '@type': '/acme.widget.v1.MsgSpin', turns: '1' }], memo: '' },
      auth_info: { fee: { amount: [{ denom: 'umin', amount: '150' }] } },
      signatures: [tx.signature],
    };
    const calls: number[] = [];
    const rest: RestClient = {
      getJson: async () => undefined,
      postJson: async () => undefined,
      validatorMoniker: async () => 'operator',
      txsOfBlock: async (height, expected) => {
        calls.push(height);
        expect(expected).toBe(1);
        return [restTx];
      },
    };
    const raw: RawBlock = {
      height: 7,
      chainId: 'minimove-1',
      hash: 'AB'.repeat(32),
      time: '2025-01-01T00:00:03.5Z',
      proposerAddress: '11'.repeat(20),
      txs: [tx.base64],
      txResults: [
        {
          code: 0,
          codespace: '',
          log: '',
          info: '',
          data: '',
          gasWanted: '100000',
          gasUsed: '5',
          events: [],
        },
      ],
      finalizeBlockEvents: [],
    };
    const prepared = await prepareBlock(raw, undefined, {
      decoder: createIngestDecoder({ prefix: 'init' }),
      rest,
      accountPrefix: 'init',
      monikers: new Map(),
      accountBytes: createAccountBytesMemo('init'),
    });
    expect(calls).toEqual([7]);
    expect(prepared.txs[0]!.msgTypes).toEqual(['acme.widget.v1.MsgSpin']);
    const data = JSON.parse(prepared.txs[0]!.data) as { tx: { body: { messages: unknown[] } } };
    expect(data.tx.body.messages).toEqual(restTx.body.messages);
    expect(prepared.block.totalFee).toBe('[{"denom":"umin","amount":"150"}]');
    expect(prepared.validator).toEqual({ operatorAddress: prepared.block.proposer, moniker: 'operator' });
  });
});
