import { sha256 } from '@noble/hashes/sha2.js';
import { PubKey as Secp256k1PubKey } from '@initia/initia.proto/cosmos/crypto/secp256k1/keys.js';
import { SignMode as SignMode_ } from '@initia/initia.proto/cosmos/tx/signing/v1beta1/signing.js';
import { AuthInfo, SignDoc, TxBody, TxRaw } from '@initia/initia.proto/cosmos/tx/v1beta1/tx.js';
import type { Any } from '@initia/initia.proto/google/protobuf/any.js';
import { PubKey as EthPubKey } from '@initia/initia.proto/initia/crypto/v1beta1/ethsecp256k1/keys.js';
import type { CosmosSigner, KeyAlgo, SignMode } from '../signer.js';
import { aminoOfAny, aminoSignDoc } from './amino.js';

export interface Coin {
  denom: string;
  amount: string;
}

export interface UnsignedCosmosTx {
  messages: Any[];
  memo: string;
  gasLimit: bigint;
  fee: Coin[];
  chainId: string;
  accountNumber: bigint;
  sequence: bigint;
  publicKey: Uint8Array;
  algo: KeyAlgo;
  /** Recorded in the signer info's mode_info; `direct` unless the signer says otherwise. */
  signMode?: SignMode;
}

export const PUBKEY_TYPE: Record<KeyAlgo, string> = {
  eth_secp256k1: '/initia.crypto.v1beta1.ethsecp256k1.PubKey',
  secp256k1: '/cosmos.crypto.secp256k1.PubKey',
};

function pubKeyAny(pub: Uint8Array, algo: KeyAlgo): Any {
  const value =
    algo === 'eth_secp256k1'
      ? EthPubKey.encode({ key: pub }).finish()
      : Secp256k1PubKey.encode({ key: pub }).finish();
  return { typeUrl: PUBKEY_TYPE[algo], value };
}

const MODE_INFO: Record<SignMode, SignMode_> = {
  direct: SignMode_.SIGN_MODE_DIRECT,
  eip191: SignMode_.SIGN_MODE_EIP_191,
};

export function encodeBodyAndAuth(tx: UnsignedCosmosTx): {
  bodyBytes: Uint8Array;
  authInfoBytes: Uint8Array;
} {
  const bodyBytes = TxBody.encode(TxBody.fromPartial({ messages: tx.messages, memo: tx.memo })).finish();
  const authInfoBytes = AuthInfo.encode(
    AuthInfo.fromPartial({
      signerInfos: [
        {
          publicKey: pubKeyAny(tx.publicKey, tx.algo),
          modeInfo: { single: { mode: MODE_INFO[tx.signMode ?? 'direct'] } },
          sequence: tx.sequence,
        },
      ],
      fee: { amount: tx.fee, gasLimit: tx.gasLimit, payer: '', granter: '' },
    }),
  ).finish();
  return { bodyBytes, authInfoBytes };
}

export function signDocBytes(
  tx: UnsignedCosmosTx,
  bodyBytes: Uint8Array,
  authInfoBytes: Uint8Array,
): Uint8Array {
  return SignDoc.encode({
    bodyBytes,
    authInfoBytes,
    chainId: tx.chainId,
    accountNumber: tx.accountNumber,
  }).finish();
}

/** TxRaw bytes with an empty signature: what /simulate accepts (no key needed, so --dry-run never signs). */
export function unsignedTxBytes(tx: UnsignedCosmosTx): Uint8Array {
  const { bodyBytes, authInfoBytes } = encodeBodyAndAuth(tx);
  return TxRaw.encode({ bodyBytes, authInfoBytes, signatures: [new Uint8Array()] }).finish();
}

/** The amino JSON StdSignDoc bytes an EIP-191 signer signs (before the EIP-191 prefix). */
export function aminoSignBytes(tx: UnsignedCosmosTx): Uint8Array {
  const doc = aminoSignDoc({
    accountNumber: tx.accountNumber,
    chainId: tx.chainId,
    fee: tx.fee,
    gasLimit: tx.gasLimit,
    memo: tx.memo,
    msgs: tx.messages.map(aminoOfAny),
    sequence: tx.sequence,
  });
  return new TextEncoder().encode(doc);
}

/** Signs in the signer's mode; mode_info records that mode so the node picks the same handler. */
export async function signCosmosTx(
  unsigned: UnsignedCosmosTx,
  signer: CosmosSigner,
): Promise<{ raw: Uint8Array; hash: string }> {
  const tx: UnsignedCosmosTx = { ...unsigned, signMode: signer.signMode };
  const { bodyBytes, authInfoBytes } = encodeBodyAndAuth(tx);
  const signBytes =
    signer.signMode === 'eip191' ? aminoSignBytes(tx) : signDocBytes(tx, bodyBytes, authInfoBytes);
  const signature = await signer.sign(signBytes);
  const raw = TxRaw.encode({ bodyBytes, authInfoBytes, signatures: [signature] }).finish();
  return { raw, hash: cometTxHash(raw) };
}

/** CometBFT tx hash: upper-case hex sha256 of the raw tx bytes. */
export function cometTxHash(raw: Uint8Array): string {
  return Buffer.from(sha256(raw)).toString('hex').toUpperCase();
}
