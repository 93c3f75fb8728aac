import { sha256 } from '@noble/hashes/sha2.js';
import { PubKey as Secp256k1PubKey } from '@initia/initia.proto/cosmos/crypto/secp256k1/keys.js';
import { SignMode } from '@initia/initia.proto/cosmos/tx/signing/v1beta1/signing.js';
import { AuthInfo, SignDoc, TxBody, TxRaw } from '@initia/initia.proto/cosmos/tx/v1beta1/tx.js';
import type { Any } from '@initia/initia.proto/google/protobuf/any.js';
import { PubKey as EthPubKey } from '@initia/initia.proto/initia/crypto/v1beta1/ethsecp256k1/keys.js';
import type { CosmosSigner, KeyAlgo } from '../signer.js';

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
          modeInfo: { single: { mode: SignMode.SIGN_MODE_DIRECT } },
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

export async function signCosmosTx(
  tx: UnsignedCosmosTx,
  signer: CosmosSigner,
): Promise<{ raw: Uint8Array; hash: string }> {
  const { bodyBytes, authInfoBytes } = encodeBodyAndAuth(tx);
  const signature = await signer.signDirect(signDocBytes(tx, bodyBytes, authInfoBytes));
  const raw = TxRaw.encode({ bodyBytes, authInfoBytes, signatures: [signature] }).finish();
  return { raw, hash: cometTxHash(raw) };
}

/** CometBFT tx hash: upper-case hex sha256 of the raw tx bytes. */
export function cometTxHash(raw: Uint8Array): string {
  return Buffer.from(sha256(raw)).toString('hex').toUpperCase();
}
