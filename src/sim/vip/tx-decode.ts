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
import { SignMode } from '@initia/initia.proto/cosmos/tx/signing/v1beta1/signing.js';
import { aminoSignDocText, type DecodedMsg } from './amino.js';

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
  /** mode_info.single.mode; anything but DIRECT or EIP_191 fails verification. */
  signMode: 'direct' | 'eip191' | 'unsupported';
  memo: string;
  timeoutHeight: bigint;
  /** Extension options make the amino (EIP-191) handler refuse the tx. */
  hasExtensionOptions: boolean;
  feePayer: string;
  feeGranter: string;
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
    signMode: signModeOf(info.modeInfo?.single?.mode),
    memo: body.memo,
    timeoutHeight: body.timeoutHeight,
    hasExtensionOptions: body.extensionOptions.length + body.nonCriticalExtensionOptions.length > 0,
    feePayer: auth.fee?.payer ?? '',
    feeGranter: auth.fee?.granter ?? '',
    sequence: info.sequence,
    gasLimit: auth.fee?.gasLimit ?? 0n,
    fee: (auth.fee?.amount ?? []).map((c) => ({ denom: c.denom, amount: c.amount })),
  };
}

function signModeOf(mode: SignMode | undefined): DecodedTx['signMode'] {
  if (mode === SignMode.SIGN_MODE_DIRECT) return 'direct';
  if (mode === SignMode.SIGN_MODE_EIP_191) return 'eip191';
  return 'unsupported';
}

function signerAddress(pub: Uint8Array, algo: DecodedTx['algo']): Uint8Array {
  try {
    if (algo === 'secp256k1') return ripemd160(sha256(pub));
    return keccak_256(secp256k1.Point.fromBytes(pub).toBytes(false).slice(1)).slice(12);
  } catch {
    throw new TxReject(8, 'public key is not a curve point: invalid pubkey');
  }
}

/**
 * The bytes the signer signed, as the node rebuilds them: the SignDoc for DIRECT; for EIP_191
 * the amino JSON sign doc behind the "\x19Ethereum Signed Message:\n<len>" prefix. Undefined
 * when the node could not build them (unknown mode, extension options, a message without an
 * amino form), which fails verification as on a node.
 */
export function signBytesOf(tx: DecodedTx, chainId: string, accountNumber: bigint): Uint8Array | undefined {
  if (tx.signMode === 'direct') {
    return SignDoc.encode({
      bodyBytes: tx.bodyBytes,
      authInfoBytes: tx.authInfoBytes,
      chainId,
      accountNumber,
    }).finish();
  }
  if (tx.signMode !== 'eip191' || tx.hasExtensionOptions) return undefined;
  let doc: Buffer;
  try {
    doc = Buffer.from(
      aminoSignDocText({
        accountNumber,
        chainId,
        sequence: tx.sequence,
        memo: tx.memo,
        timeoutHeight: tx.timeoutHeight,
        gasLimit: tx.gasLimit,
        fee: tx.fee,
        feePayer: tx.feePayer,
        feeGranter: tx.feeGranter,
        msgs: tx.msgs,
      }),
      'utf8',
    );
  } catch {
    return undefined;
  }
  return Buffer.concat([Buffer.from(`\x19Ethereum Signed Message:\n${doc.length}`, 'utf8'), doc]);
}

/** Initia's ante check: ethsecp256k1 verifies keccak256(sign bytes), secp256k1 sha256(sign bytes). */
export function verifySignature(tx: DecodedTx, chainId: string, accountNumber: bigint): boolean {
  const bytes = signBytesOf(tx, chainId, accountNumber);
  if (!bytes || tx.signature.length !== 64) return false;
  const digest = tx.algo === 'eth_secp256k1' ? keccak_256(bytes) : sha256(bytes);
  try {
    return secp256k1.verify(tx.signature, digest, tx.pubKey, { prehash: false, lowS: true });
  } catch {
    return false;
  }
}
