import type { Coin } from '../types.js';

/**
 * Hand-written protobuf encoding of the tx envelope (TxRaw, TxBody, AuthInfo), the hot path of
 * block generation. Field order and omission follow the generated codecs exactly; the tests decode
 * every tx with cosmjs-types and re-encode it byte for byte.
 */
function varint(value: number | bigint): Buffer {
  // Numbers (every length, sequence, gas and mode the simulator encodes) stay off BigInt.
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) {
    if (value < 0x80) return Buffer.from([value]);
    const out: number[] = [];
    let v = value;
    while (v > 0x7f) {
      out.push((v % 0x80) | 0x80);
      v = Math.floor(v / 0x80);
    }
    out.push(v);
    return Buffer.from(out);
  }
  let v = BigInt(value);
  const out: number[] = [];
  while (v > 0x7fn) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
  return Buffer.from(out);
}

/** A length-delimited field (wire type 2). */
export function lenField(fieldNo: number, payload: Uint8Array): Buffer {
  const n = payload.length;
  if (n < 0x80) {
    const out = Buffer.allocUnsafe(2 + n);
    out[0] = (fieldNo << 3) | 2;
    out[1] = n;
    out.set(payload, 2);
    return out;
  }
  return Buffer.concat([Buffer.from([(fieldNo << 3) | 2]), varint(n), payload]);
}

const EMPTY = Buffer.alloc(0);

const strField = (fieldNo: number, text: string): Buffer => lenField(fieldNo, Buffer.from(text, 'utf8'));

/** A varint field, omitted when zero (proto3 default). */
export function varintField(fieldNo: number, value: number | bigint): Buffer {
  if (value === 0 || value === 0n) return EMPTY;
  return Buffer.concat([Buffer.from([fieldNo << 3]), varint(value)]);
}

export function anyBytes(typeUrl: string, value: Uint8Array): Buffer {
  return Buffer.concat([strField(1, typeUrl), value.length > 0 ? lenField(2, value) : Buffer.alloc(0)]);
}

export function txBodyBytes(msgs: Array<{ typeUrl: string; value: Uint8Array }>, memo: string): Buffer {
  return Buffer.concat([
    ...msgs.map((m) => lenField(1, anyBytes(m.typeUrl, m.value))),
    ...(memo !== '' ? [strField(2, memo)] : []),
  ]);
}

function coinBytes(c: Coin): Buffer {
  return Buffer.concat([
    c.denom !== '' ? strField(1, c.denom) : Buffer.alloc(0),
    c.amount !== '' ? strField(2, c.amount) : Buffer.alloc(0),
  ]);
}

/** cosmos.bank.v1beta1.MsgSend, as cosmjs-types encodes it (empty strings omitted), as a plain Uint8Array. */
export function msgSendBytes(from: string, to: string, amount: Coin[]): Uint8Array {
  const bytes = Buffer.concat([
    from !== '' ? strField(1, from) : EMPTY,
    to !== '' ? strField(2, to) : EMPTY,
    ...amount.map((c) => lenField(3, coinBytes(c))),
  ]);
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length);
}

/** AuthInfo{signer_infos: [SignerInfo{public_key, mode_info{single{mode}}, sequence}], fee}. */
export function authInfoBytes(
  pubKeyAny: Uint8Array,
  mode: number,
  sequence: number,
  fee: Coin[],
  gasLimit: number,
): Buffer {
  const modeInfo = lenField(1, varintField(1, mode));
  const signerInfo = Buffer.concat([lenField(1, pubKeyAny), lenField(2, modeInfo), varintField(3, sequence)]);
  const feeBytes = Buffer.concat([...fee.map((c) => lenField(1, coinBytes(c))), varintField(2, gasLimit)]);
  return Buffer.concat([lenField(1, signerInfo), lenField(2, feeBytes)]);
}

export function txRawBytes(body: Uint8Array, authInfo: Uint8Array, signatures: Uint8Array[]): Buffer {
  return Buffer.concat([
    body.length > 0 ? lenField(1, body) : Buffer.alloc(0),
    authInfo.length > 0 ? lenField(2, authInfo) : Buffer.alloc(0),
    ...signatures.map((s) => lenField(3, s)),
  ]);
}

/** SignDoc{body_bytes, auth_info_bytes, chain_id, account_number}. */
export function signDocBytes(
  body: Uint8Array,
  authInfo: Uint8Array,
  chainId: string,
  accountNumber: number,
): Buffer {
  return Buffer.concat([
    body.length > 0 ? lenField(1, body) : Buffer.alloc(0),
    authInfo.length > 0 ? lenField(2, authInfo) : Buffer.alloc(0),
    chainId !== '' ? strField(3, chainId) : Buffer.alloc(0),
    varintField(4, accountNumber),
  ]);
}
