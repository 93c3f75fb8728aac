import { secp256k1 } from '@noble/curves/secp256k1.js';
import { AuthInfo, TxBody, TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import { PubKey } from 'cosmjs-types/cosmos/crypto/secp256k1/keys';
import { SignMode } from 'cosmjs-types/cosmos/tx/signing/v1beta1/signing';
import { describe, expect, it } from 'vitest';
import type { RestClient } from '../../node/rest.js';
import type { RawBlock } from '../../node/types.js';
import { createAccountBytesMemo, prepareBlock } from './block.js';
import { createIngestDecoder } from '../decode/ingest-decoder.js';
import { MsgSend } from 'cosmjs-types/cosmos/bank/v1beta1/tx';
import { AppError } from '../../shared/errors.js';
import { unpackTxText } from '../../wire/tx-packing.js';
import { toBech32 } from '../../shared/address.js';
import { ETHSECP256K1_PUBKEY, addressFromPubKey } from '../../shared/proto/signer.js';

const PUB = secp256k1.getPublicKey(new Uint8Array(32).fill(7), true);

/**
 * A genuinely encoded tx: by default its only message type no local registry knows; `keyType`
 * signs it with a public key of that type URL (field 1 the key bytes, as every SDK key type).
 */
function unknownMessageTx({
  message,
  keyType,
}: { message?: { typeUrl: string; value: Uint8Array }; keyType?: string } = {}) {
  const body = TxBody.encode(
    TxBody.fromPartial({
      messages: [message ?? { typeUrl: '/acme.widget.v1.MsgSpin', value: Uint8Array.from([8, 1]) }],
    }),
  ).finish();
  const authInfo = AuthInfo.encode(
    AuthInfo.fromPartial({
      signerInfos: [
        {
          publicKey: {
            typeUrl: keyType ?? '/cosmos.crypto.secp256k1.PubKey',
            value: PubKey.encode({ key: PUB }).finish(),
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
    // Packed where it was rendered (the writer stores these bytes), in a buffer of its own.
    const packed = prepared.txs[0]!.packed!;
    expect(unpackTxText(packed).toString('utf8')).toBe(prepared.txs[0]!.data);
    expect(packed.byteLength).toBe(packed.buffer.byteLength);
  });
});

describe('proposer monikers', () => {
  it('asks again on the next block when the look-up failed, and never after an answer', async () => {
    const answers: Array<() => Promise<string | undefined>> = [
      async () => {
        throw new AppError('node_rest_error', 'rest: HTTP 503');
      },
      async () => 'operator',
    ];
    let asked = 0;
    const rest: RestClient = {
      getJson: async () => undefined,
      postJson: async () => undefined,
      validatorMoniker: () => answers[Math.min(asked++, answers.length - 1)]!(),
      txsOfBlock: async () => [],
    };
    const ctx = {
      decoder: createIngestDecoder({ prefix: 'init' }),
      rest,
      accountPrefix: 'init',
      monikers: new Map<string, string | undefined>(),
      accountBytes: createAccountBytesMemo('init'),
    };
    const block = (height: number): RawBlock => ({
      height,
      chainId: 'minimove-1',
      hash: 'AB'.repeat(32),
      time: '2025-01-01T00:00:03Z',
      proposerAddress: '11'.repeat(20),
      txs: [],
      txResults: [],
      finalizeBlockEvents: [],
    });
    expect((await prepareBlock(block(1), undefined, ctx)).validator).toBeUndefined();
    const second = await prepareBlock(block(2), undefined, ctx);
    expect(second.validator).toEqual({ operatorAddress: second.block.proposer, moniker: 'operator' });
    expect((await prepareBlock(block(3), undefined, ctx)).validator).toBeUndefined();
    expect(asked).toBe(2);
  });
});

/** A block of `tx` whose result carries `events`; prepared with a REST whose node lacks a type. */
async function prepareWithoutRest(tx: { base64: string }, events: RawBlock['txResults'][number]['events']) {
  const rest: RestClient = {
    getJson: async () => undefined,
    postJson: async () => undefined,
    validatorMoniker: async () => undefined,
    txsOfBlock: async () => {
      throw new AppError('node_rest_error', 'rest: HTTP 500', {
        details: {
          answer: { status: 500, code: 2, message: 'unable to resolve type URL x: tx parse error' },
        },
      });
    },
  };
  const raw: RawBlock = {
    height: 9,
    chainId: 'minievm-1',
    hash: 'CD'.repeat(32),
    time: '2025-01-01T00:00:04Z',
    proposerAddress: '22'.repeat(20),
    txs: [tx.base64],
    txResults: [
      { code: 0, codespace: '', log: '', info: '', data: '', gasWanted: '100000', gasUsed: '5', events },
    ],
    finalizeBlockEvents: [],
  };
  return prepareBlock(raw, undefined, {
    decoder: createIngestDecoder({ prefix: 'init' }),
    rest,
    accountPrefix: 'init',
    monikers: new Map(),
    accountBytes: createAccountBytesMemo('init'),
  });
}

/** docs/ingest.md §3.4: a signer public key of a type this release does not know never stops ingest. */
describe('a signer key of a type the registry lacks', () => {
  const send = {
    typeUrl: '/cosmos.bank.v1beta1.MsgSend',
    value: MsgSend.encode({ fromAddress: 'init1from', toAddress: 'init1to', amount: [] }).finish(),
  };
  const accSeq = (address: string) => [
    { type: 'tx', attributes: [{ key: 'acc_seq', value: `${address}/3`, index: true }] },
  ];
  const ANTE_SIGNER = toBech32(new Uint8Array(20).fill(0xab), 'init');

  it('named like a known type: the signer is that type’s address; stored undecoded when REST cannot render it', async () => {
    const keyType = '/initia.crypto.v1beta2.ethsecp256k1.PubKey';
    const prepared = await prepareWithoutRest(
      unknownMessageTx({ message: send, keyType }),
      accSeq(ANTE_SIGNER),
    );
    const tx = prepared.txs[0]!;
    expect(Buffer.from(tx.signer)).toEqual(Buffer.from(addressFromPubKey(ETHSECP256K1_PUBKEY, PUB)));
    expect(tx.msgTypes).toEqual(['cosmos.bank.v1beta1.MsgSend']);
    expect(tx.undecodedRaw).toBeDefined();
    const data = JSON.parse(tx.data) as { tx: { auth_info: { signer_infos: { public_key: object }[] } } };
    expect(data.tx.auth_info.signer_infos[0]!.public_key).toEqual({
      '@type': keyType,
      value: Buffer.from(PubKey.encode({ key: PUB }).finish()).toString('base64'),
    });
  });

  it('of no type a rule reads: the signer the ante handler verified (tx.acc_seq); none at all stops naming the tx', async () => {
    const tx = unknownMessageTx({ message: send, keyType: '/acme.crypto.v1.bls12381.PubKey' });
    const prepared = await prepareWithoutRest(tx, accSeq(ANTE_SIGNER));
    expect(toBech32(prepared.txs[0]!.signer, 'init')).toBe(ANTE_SIGNER);
    expect(prepared.txs[0]!.accounts.map((a) => toBech32(a, 'init'))).toContain(ANTE_SIGNER);
    expect(prepared.txs[0]!.undecodedRaw).toBeDefined();
    await expect(prepareWithoutRest(tx, [])).rejects.toMatchObject({ code: 'tx_no_signer' });
  });
});
