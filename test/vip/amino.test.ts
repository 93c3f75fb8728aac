import { describe, expect, it } from 'vitest';
import {
  MsgExecuteContract,
  MsgInstantiateContract,
  MsgStoreCode,
} from '@initia/initia.proto/cosmwasm/wasm/v1/tx.js';
import type { Any } from '@initia/initia.proto/google/protobuf/any.js';
import { MsgExecute, MsgPublish } from '@initia/initia.proto/initia/move/v1/tx.js';
import { aminoOfAny, canonicalJson } from '../../src/vip/cosmos/amino.js';
import { aminoSignBytes, signCosmosTx, type UnsignedCosmosTx } from '../../src/vip/cosmos/tx.js';
import { createLocalSigner } from '../../src/vip/signer.js';
import { decodeTx, signBytesOf, verifySignature } from '../../src/sim/vip/tx-decode.js';

const SENDER = 'init1r8n7xah8cgfm0el8u3kvwzja6zrd4le2juuk8h';
const KEY = Buffer.from('11'.repeat(32), 'hex');

const any = (typeUrl: string, value: Uint8Array): Any => ({ typeUrl, value });

/** The messages the VIP tool sends that no recorded EIP-191 tx covers. */
const VIP_MSGS: Record<string, Any> = {
  publish: any(
    '/initia.move.v1.MsgPublish',
    MsgPublish.encode({
      sender: SENDER,
      codeBytes: [Buffer.from('a11ceb0b', 'hex')],
      upgradePolicy: 1,
    }).finish(),
  ),
  execute: any(
    '/initia.move.v1.MsgExecute',
    MsgExecute.encode({
      sender: SENDER,
      moduleAddress: '0x' + '0'.repeat(24) + '19e7e376e7c213b7e7e7e46cc70a5dd086daff2a',
      moduleName: 'vip_score',
      functionName: 'finalize_script',
      typeArgs: [],
      args: [Buffer.from('0500000000000000', 'hex')],
    }).finish(),
  ),
  store: any(
    '/cosmwasm.wasm.v1.MsgStoreCode',
    MsgStoreCode.encode({ sender: SENDER, wasmByteCode: Buffer.from('0061736d01000000', 'hex') }).finish(),
  ),
  instantiate: any(
    '/cosmwasm.wasm.v1.MsgInstantiateContract',
    MsgInstantiateContract.encode({
      sender: SENDER,
      admin: SENDER,
      codeId: 7n,
      label: 'vip <score> & "co" \u2028',
      msg: Buffer.from(`{"init_stage":3,"allow_list":["${SENDER}"]}`),
      funds: [],
    }).finish(),
  ),
  execute_contract: any(
    '/cosmwasm.wasm.v1.MsgExecuteContract',
    MsgExecuteContract.encode({
      sender: SENDER,
      contract: SENDER,
      msg: Buffer.from(`{"update_scores":{"stage":3,"scores":[["${SENDER}",18446744073709551615]]}}`),
      funds: [{ denom: 'umin', amount: '5' }],
    }).finish(),
  ),
};

function unsigned(messages: Any[]): UnsignedCosmosTx {
  return {
    messages,
    memo: 'memo <&>',
    gasLimit: 123_456n,
    fee: [{ denom: 'umin', amount: '1852' }],
    chainId: 'miniwasm-1',
    accountNumber: 9n,
    sequence: 4n,
    // The public key is not part of the amino sign doc; tests that sign set the signer's.
    publicKey: new Uint8Array(33),
    algo: 'eth_secp256k1',
    signMode: 'eip191',
  };
}

describe('amino JSON encoding rules', () => {
  it('Go string escaping, UTF-8 key order, float64 numbers', () => {
    expect(canonicalJson({ b: '<a&b>', a: '\u2028\n"' })).toBe(
      '{"a":"\\u2028\\n\\"","b":"\\u003ca\\u0026b\\u003e"}',
    );
    // U+00E9 (2 UTF-8 bytes, 0xC3…) sorts before U+FF21 by bytes and by code units alike; an
    // astral key (0xF0…) sorts last by bytes though its UTF-16 surrogate (0xD8…) is smaller.
    expect(canonicalJson({ '\u{1F600}': 1, '\uFF21': 2, é: 3 })).toBe('{"é":3,"Ａ":2,"😀":1}');
    expect(canonicalJson([JSON.parse('9007199254740993'), 1e21, -0, 0.5])).toBe(
      '[9007199254740992,1e+21,-0,0.5]',
    );
    expect(() => canonicalJson(Infinity)).toThrow(/float64/);
  });

  it('each VIP message: the client and the node-side encoders agree byte for byte', async () => {
    const signer = createLocalSigner(KEY, 'eth_secp256k1', 'eip191');
    for (const [name, msg] of Object.entries(VIP_MSGS)) {
      const tx = { ...unsigned([msg]), publicKey: await signer.publicKey() };
      const client = Buffer.from(aminoSignBytes(tx)).toString('utf8');
      const { raw } = await signCosmosTx(tx, signer);
      const node = signBytesOf(decodeTx(raw), 'miniwasm-1', 9n);
      const prefix = `\x19Ethereum Signed Message:\n${Buffer.byteLength(client)}`;
      expect(Buffer.from(node ?? []).toString('utf8'), name).toBe(prefix + client);
    }
  });

  it('renders the fields the node signs (shapes from the proto annotations)', () => {
    const v = (name: string) => aminoOfAny(VIP_MSGS[name] as Any);
    expect(canonicalJson(v('publish'))).toBe(
      `{"type":"move/MsgPublish","value":{"code_bytes":["oRzrCw=="],"sender":"${SENDER}","upgrade_policy":1}}`,
    );
    expect(canonicalJson(v('store'))).toBe(
      `{"type":"wasm/MsgStoreCode","value":{"sender":"${SENDER}","wasm_byte_code":"AGFzbQEAAAA="}}`,
    );
    expect(canonicalJson(v('instantiate'))).toBe(
      `{"type":"wasm/MsgInstantiateContract","value":{"admin":"${SENDER}","code_id":"7","funds":[],` +
        `"label":"vip \\u003cscore\\u003e \\u0026 \\"co\\" \\u2028","msg":{"allow_list":["${SENDER}"],"init_stage":3},` +
        `"sender":"${SENDER}"}}`,
    );
    // u64::MAX goes through float64 on the node: 18446744073709551616 printed in shortest form.
    expect(canonicalJson(v('execute_contract'))).toContain(
      '"scores":[["' + SENDER + '",18446744073709552000]]',
    );
    expect(canonicalJson(v('execute_contract'))).toContain('"funds":[{"amount":"5","denom":"umin"}]');
  });

  it('local keys can sign EIP-191 too (eth_secp256k1: keccak; secp256k1: sha256), and the node verifies', async () => {
    for (const algo of ['eth_secp256k1', 'secp256k1'] as const) {
      const signer = createLocalSigner(KEY, algo, 'eip191');
      const { raw } = await signCosmosTx(
        { ...unsigned([VIP_MSGS.execute as Any]), publicKey: await signer.publicKey(), algo },
        signer,
      );
      const tx = decodeTx(raw);
      expect(tx.signMode).toBe('eip191');
      expect(verifySignature(tx, 'miniwasm-1', 9n)).toBe(true);
      expect(verifySignature(tx, 'miniwasm-1', 8n)).toBe(false);
    }
  });

  it('messages without an amino form and non-JSON contract messages are typed errors', () => {
    expect(() => aminoOfAny(any('/cosmos.bank.v1beta1.MsgSend', new Uint8Array()))).toThrow(
      expect.objectContaining({ code: 'amino_encoding' }),
    );
    const bad = any(
      '/cosmwasm.wasm.v1.MsgExecuteContract',
      MsgExecuteContract.encode({
        sender: SENDER,
        contract: SENDER,
        msg: Buffer.from('{not json'),
        funds: [],
      }).finish(),
    );
    expect(() => aminoOfAny(bad)).toThrow(expect.objectContaining({ code: 'amino_encoding' }));
    // The node cannot build sign bytes for it either, so it fails verification.
    expect(() => aminoSignBytes(unsigned([bad]))).toThrow(/not valid UTF-8 JSON/);
  });
});
