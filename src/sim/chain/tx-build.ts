import { hash as oneShotHash } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { PUBKEY_TYPE_URL, sha256, type SimAccount } from './keys.js';
import type { Coin, MsgCallTruth } from '../types.js';
import { anyBytes, authInfoBytes, lenField, signDocBytes, txBodyBytes, txRawBytes } from './tx-wire.js';

/** Any{PubKey{key}} per signer, encoded once (same wire form for both key types). */
const pubKeyAnys = new WeakMap<SimAccount, Buffer>();
function pubKeyAnyOf(signer: SimAccount): Buffer {
  let any = pubKeyAnys.get(signer);
  if (!any)
    pubKeyAnys.set(signer, (any = anyBytes(PUBKEY_TYPE_URL[signer.keyType], lenField(1, signer.publicKey))));
  return any;
}

/** Sign modes the simulator emits; 9999 is minievm's SIGN_MODE_ETHEREUM (unknown to the SDK enum). */
export type SimSignMode = 'DIRECT' | 'EIP_191' | 'ETHEREUM';

const SIGN_MODE_NUMBER: Record<SimSignMode, number> = { DIRECT: 1, EIP_191: 191, ETHEREUM: 9999 };
/** How the REST gateway prints the mode: by name when the SDK enum knows it, else the number. */
const SIGN_MODE_JSON: Record<SimSignMode, string> = {
  DIRECT: '"SIGN_MODE_DIRECT"',
  EIP_191: '"SIGN_MODE_EIP_191"',
  ETHEREUM: '9999',
};

/** One message: its protobuf Any parts, its REST proto-JSON text, and its amino form (EIP-191). */
export interface EncodedMsg {
  typeUrl: string;
  value: Uint8Array;
  /** REST proto-JSON object text, starting with "@type". */
  json: string;
  amino: { type: string; value: unknown };
  /** The call target for the tx's truth (TxTruth.calls); never encoded. */
  target?: Omit<MsgCallTruth, 'type'>;
}

export interface TxInput {
  msgs: EncodedMsg[];
  memo: string;
  fee: Coin[];
  gasLimit: number;
  signer: SimAccount;
  sequence: number;
  signMode: SimSignMode;
  chainId: string;
  /** Fast mode: a unique 64-byte pseudo-signature instead of ECDSA. */
  fastSignature: boolean;
  /** For ETHEREUM mode the 65-byte r‖s‖v signature comes from the wrapped Ethereum tx. */
  presetSignature?: Uint8Array;
}

export interface BuiltTx {
  bytes: Uint8Array;
  base64: string;
  /** Upper-case hex sha256 of the bytes. */
  hash: string;
  signature: Uint8Array;
  /** REST tx object text: {"body":…,"auth_info":…,"signatures":[…]} without "@type". */
  /** Rendered on first use: ingest decodes the bytes itself and asks REST only as a fallback. */
  readonly restJson: string;
}

export function buildTx(input: TxInput): BuiltTx {
  const bodyBytes = txBodyBytes(input.msgs, input.memo);
  const authInfo = authInfoBytes(
    pubKeyAnyOf(input.signer),
    SIGN_MODE_NUMBER[input.signMode],
    input.sequence,
    input.fee,
    input.gasLimit,
  );
  const signature = input.presetSignature ?? signTx(input, bodyBytes, authInfo);
  const restInput = { ...input, msgs: input.msgs.map((m) => ({ json: m.json })) };
  let restJson: string | undefined;
  const render = (): string => renderRestTx(restInput, signature);
  const bytes = txRawBytes(bodyBytes, authInfo, [signature]);
  return {
    bytes,
    base64: Buffer.from(bytes).toString('base64'),
    hash: sha256(bytes).toString('hex').toUpperCase(),
    signature,
    get restJson() {
      return (restJson ??= render());
    },
  };
}

function signTx(input: TxInput, bodyBytes: Uint8Array, authInfo: Uint8Array): Uint8Array {
  if (input.fastSignature) {
    return new Uint8Array(oneShotHash('sha512', Buffer.concat([bodyBytes, authInfo]), 'buffer'));
  }
  const signBytes = signBytesFor(input, bodyBytes, authInfo);
  const key = input.signer.privateKey;
  if (input.signer.keyType === 'secp256k1') return secp256k1.sign(signBytes, key); // sha256 prehash
  return secp256k1.sign(keccak_256(signBytes), key, { prehash: false });
}

/** The exact bytes a signer signs for the given mode (before the key type's hash). */
export function signBytesFor(input: TxInput, bodyBytes: Uint8Array, authInfo: Uint8Array): Uint8Array {
  if (input.signMode === 'EIP_191') {
    const doc = new TextEncoder().encode(aminoSignDoc(input));
    const prefix = new TextEncoder().encode(`\x19Ethereum Signed Message:\n${doc.length}`);
    const out = new Uint8Array(prefix.length + doc.length);
    out.set(prefix);
    out.set(doc, prefix.length);
    return out;
  }
  return signDocBytes(bodyBytes, authInfo, input.chainId, input.signer.accountNumber);
}

/** The legacy amino StdSignDoc, keys sorted, as EIP-191 signers sign it. */
export function aminoSignDoc(input: TxInput): string {
  return sortedJson({
    account_number: String(input.signer.accountNumber),
    chain_id: input.chainId,
    fee: { amount: input.fee, gas: String(input.gasLimit) },
    memo: input.memo,
    msgs: input.msgs.map((m) => m.amino),
    sequence: String(input.sequence),
  });
}

export function sortedJson(value: unknown): string {
  if (Array.isArray(value)) return '[' + value.map(sortedJson).join(',') + ']';
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1));
    return '{' + entries.map(([k, v]) => JSON.stringify(k) + ':' + sortedJson(v)).join(',') + '}';
  }
  return JSON.stringify(value);
}

export function coinsJson(coins: Coin[]): string {
  return (
    '[' + coins.map((c) => `{"denom":${JSON.stringify(c.denom)},"amount":"${c.amount}"}`).join(',') + ']'
  );
}

export function coinsText(coins: Coin[]): string {
  return coins.map((c) => c.amount + c.denom).join(',');
}

/** The REST gateway's proto-JSON of the tx: proto field order, snake_case, defaults emitted. */
function renderRestTx(
  input: Omit<TxInput, 'msgs'> & { msgs: Array<{ json: string }> },
  signature: Uint8Array,
): string {
  const body =
    `{"messages":[${input.msgs.map((m) => m.json).join(',')}],"memo":${JSON.stringify(input.memo)},` +
    `"timeout_height":"0","extension_options":[],"non_critical_extension_options":[]}`;
  const signerInfo =
    `{"public_key":{"@type":"${PUBKEY_TYPE_URL[input.signer.keyType]}",` +
    `"key":"${Buffer.from(input.signer.publicKey).toString('base64')}"},` +
    `"mode_info":{"single":{"mode":${SIGN_MODE_JSON[input.signMode]}}},"sequence":"${input.sequence}"}`;
  const authInfo =
    `{"signer_infos":[${signerInfo}],"fee":{"amount":${coinsJson(input.fee)},` +
    `"gas_limit":"${input.gasLimit}","payer":"","granter":""},"tip":null}`;
  return `{"body":${body},"auth_info":${authInfo},"signatures":["${Buffer.from(signature).toString('base64')}"]}`;
}
