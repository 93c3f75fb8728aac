import { secp256k1 } from '@noble/curves/secp256k1.js';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { PubKey as Secp256k1PubKey } from '@initia/initia.proto/cosmos/crypto/secp256k1/keys.js';
import { AuthInfo, SignDoc, TxBody, TxRaw } from '@initia/initia.proto/cosmos/tx/v1beta1/tx.js';
import {
  MsgExecuteContract,
  MsgInstantiateContract,
  MsgStoreCode,
} from '@initia/initia.proto/cosmwasm/wasm/v1/tx.js';
import { PubKey as EthPubKey } from '@initia/initia.proto/initia/crypto/v1beta1/ethsecp256k1/keys.js';
import { MsgExecute, MsgPublish } from '@initia/initia.proto/initia/move/v1/tx.js';

/** A failed ante/decoding step, with the Cosmos SDK error code a node would answer. */
export class TxReject extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly codespace = 'sdk',
  ) {
    super(message);
  }
}

export type DecodedMsg =
  | { type: '/initia.move.v1.MsgExecute'; value: MsgExecute }
  | { type: '/initia.move.v1.MsgPublish'; value: MsgPublish }
  | { type: '/cosmwasm.wasm.v1.MsgStoreCode'; value: MsgStoreCode }
  | { type: '/cosmwasm.wasm.v1.MsgInstantiateContract'; value: MsgInstantiateContract }
  | { type: '/cosmwasm.wasm.v1.MsgExecuteContract'; value: MsgExecuteContract };

export interface DecodedTx {
  raw: Uint8Array;
  hash: string;
  bodyBytes: Uint8Array;
  authInfoBytes: Uint8Array;
  msgs: DecodedMsg[];
  msgSenders: string[];
  signature: Uint8Array;
  pubKey: Uint8Array;
  algo: 'eth_secp256k1' | 'secp256k1';
  /** 20-byte signer address derived from the public key. */
  signer: Uint8Array;
  sequence: bigint;
  gasLimit: bigint;
  fee: { denom: string; amount: string }[];
}

function decodeMsg(typeUrl: string, value: Uint8Array): DecodedMsg {
  switch (typeUrl) {
    case '/initia.move.v1.MsgExecute':
      return { type: typeUrl, value: MsgExecute.decode(value) };
    case '/initia.move.v1.MsgPublish':
      return { type: typeUrl, value: MsgPublish.decode(value) };
    case '/cosmwasm.wasm.v1.MsgStoreCode':
      return { type: typeUrl, value: MsgStoreCode.decode(value) };
    case '/cosmwasm.wasm.v1.MsgInstantiateContract':
      return { type: typeUrl, value: MsgInstantiateContract.decode(value) };
    case '/cosmwasm.wasm.v1.MsgExecuteContract':
      return { type: typeUrl, value: MsgExecuteContract.decode(value) };
    default:
      throw new TxReject(2, `unable to resolve type URL ${typeUrl}: tx parse error`);
  }
}

export function decodeTx(raw: Uint8Array): DecodedTx {
  let txRaw, body, auth;
  try {
    txRaw = TxRaw.decode(raw);
    body = TxBody.decode(txRaw.bodyBytes);
    auth = AuthInfo.decode(txRaw.authInfoBytes);
  } catch (err) {
    throw new TxReject(2, `tx parse error: ${(err as Error).message}`);
  }
  const info = auth.signerInfos[0];
  if (!info?.publicKey || auth.signerInfos.length !== 1 || txRaw.signatures.length !== 1) {
    throw new TxReject(4, 'exactly one signer with a public key is required: unauthorized');
  }
  let pubKey: Uint8Array;
  let algo: DecodedTx['algo'];
  if (info.publicKey.typeUrl === '/initia.crypto.v1beta1.ethsecp256k1.PubKey') {
    pubKey = EthPubKey.decode(info.publicKey.value).key;
    algo = 'eth_secp256k1';
  } else if (info.publicKey.typeUrl === '/cosmos.crypto.secp256k1.PubKey') {
    pubKey = Secp256k1PubKey.decode(info.publicKey.value).key;
    algo = 'secp256k1';
  } else {
    throw new TxReject(8, `unsupported public key type ${info.publicKey.typeUrl}: invalid pubkey`);
  }
  if (pubKey.length !== 33) throw new TxReject(8, 'invalid public key length: invalid pubkey');
  const msgs = body.messages.map((m) => decodeMsg(m.typeUrl, m.value));
  if (msgs.length === 0) throw new TxReject(18, 'must contain at least one message: invalid request');
  return {
    raw,
    hash: Buffer.from(sha256(raw)).toString('hex').toUpperCase(),
    bodyBytes: txRaw.bodyBytes,
    authInfoBytes: txRaw.authInfoBytes,
    msgs,
    msgSenders: msgs.map((m) => m.value.sender),
    signature: txRaw.signatures[0] ?? new Uint8Array(),
    pubKey,
    algo,
    signer: signerAddress(pubKey, algo),
    sequence: info.sequence,
    gasLimit: auth.fee?.gasLimit ?? 0n,
    fee: (auth.fee?.amount ?? []).map((c) => ({ denom: c.denom, amount: c.amount })),
  };
}

function signerAddress(pub: Uint8Array, algo: DecodedTx['algo']): Uint8Array {
  try {
    if (algo === 'secp256k1') return ripemd160(sha256(pub));
    return keccak_256(secp256k1.Point.fromBytes(pub).toBytes(false).slice(1)).slice(12);
  } catch {
    throw new TxReject(8, 'public key is not a curve point: invalid pubkey');
  }
}

/** Initia's ante check: ethsecp256k1 signs keccak256(SignDoc), secp256k1 signs sha256(SignDoc). */
export function verifySignature(tx: DecodedTx, chainId: string, accountNumber: bigint): boolean {
  const doc = SignDoc.encode({
    bodyBytes: tx.bodyBytes,
    authInfoBytes: tx.authInfoBytes,
    chainId,
    accountNumber,
  }).finish();
  const digest = tx.algo === 'eth_secp256k1' ? keccak_256(doc) : sha256(doc);
  if (tx.signature.length !== 64) return false;
  try {
    return secp256k1.verify(tx.signature, digest, tx.pubKey, { prehash: false, lowS: true });
  } catch {
    return false;
  }
}
