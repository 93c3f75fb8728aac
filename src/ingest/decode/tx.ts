import { createHash } from 'node:crypto';
import { toBech32 } from '../../shared/address.js';
import { AppError } from '../../shared/errors.js';
import type { ProtoRegistry } from '../../shared/proto/registry.js';
import type { JsonObject, JsonValue } from '../../shared/proto/render.js';
import type { MultisigKey } from '../../shared/proto/signer.js';
import {
  MULTISIG_PUBKEY,
  PubKeyError,
  addressFromUnknownPubKey,
  createSignerCache,
  multisigAddress,
} from '../../shared/proto/signer.js';
import type { RestTx } from '../../shared/proto/tx.js';
import { renderRestTx } from '../../shared/proto/tx.js';
import { jsonbText } from '../../wire/json-text.js';

export interface Coin {
  denom: string;
  amount: string;
}

/**
 * Where the signer came from: `unknown_key` is a public key of a type this release cannot derive an
 * address from; `signer` is then the fee payer if any, and ingest prefers the ante handler's
 * `tx.acc_seq` event (docs/ingest.md §3.4).
 */
export type SignerSource = 'public_key' | 'fee_payer' | 'unknown_key' | 'none';

export interface DecodedTx {
  /** UPPER hex sha256 of the raw bytes (the CometBFT tx hash). */
  readonly hash: string;
  readonly bytes: Uint8Array;
  /** REST proto-JSON `{body, auth_info, signatures}`, keys in the gateway's declaration order. */
  readonly restTx: RestTx;
  /** `restTx` as the API sends it: jsonb key order, Go escaping, NUL sanitised. */
  readonly restTxJson: string;
  /** Message type URLs without the leading '/', de-duplicated, first-occurrence order. */
  readonly msgTypes: string[];
  /** Any type URLs the registry lacks (leading '/'); non-empty ⇒ fetch this tx from REST. */
  readonly unknownTypes: string[];
  /** Wire fields no schema knows (`full.Name#no`); non-empty ⇒ fetch this tx from REST. */
  readonly unknownFields: string[];
  /** Signer bech32 (undefined only when signerSource is 'none'). */
  readonly signer: string | undefined;
  /** 'fee_payer' / 'none' flag a tx without signer_infos[0].public_key (docs/ingest.md §3.4). */
  readonly signerSource: SignerSource;
  /** auth_info.fee.amount. */
  readonly fee: Coin[];
  /** base64 signatures joined with ',' — the key rollytics joins REST txs on. */
  readonly signatureKey: string;
}

export class TxDecodeError extends AppError {
  constructor(message: string, cause?: unknown) {
    super('tx_malformed', message, cause === undefined ? {} : { cause });
    this.name = 'TxDecodeError';
  }
}

export interface TxDecoderOptions {
  readonly registry: ProtoRegistry;
  /** bech32 account prefix, e.g. `init`. */
  readonly prefix: string;
}

export interface TxDecoder {
  decodeTx(input: string | Uint8Array): DecodedTx;
}

export function createTxDecoder(options: TxDecoderOptions): TxDecoder {
  const signerAddress = createSignerCache();
  return {
    decodeTx(input) {
      const bytes = toBytes(input);
      const hash = createHash('sha256').update(bytes).digest('hex').toUpperCase();
      let rendered;
      try {
        rendered = renderRestTx(options.registry, bytes);
      } catch (cause) {
        throw new TxDecodeError(
          `tx ${hash}: ${cause instanceof Error ? cause.message : String(cause)}`,
          cause,
        );
      }
      const tx = rendered.tx;
      const { signer, signerSource } = deriveSigner(tx.auth_info, options.prefix, signerAddress, hash);
      return {
        hash,
        bytes,
        restTx: tx,
        restTxJson: jsonbText(tx),
        msgTypes: messageTypes(tx.body),
        unknownTypes: rendered.unknownTypes,
        unknownFields: rendered.unknownFields,
        signer,
        signerSource,
        fee: feeCoins(tx.auth_info),
        signatureKey: tx.signatures.join(','),
      };
    },
  };
}

/**
 * Node's base64 decoder skips characters outside the alphabet, so a decoded length shorter than
 * the text implies means the text was not base64 (cheaper than a regex over every tx).
 */
function toBytes(input: string | Uint8Array): Uint8Array {
  if (typeof input !== 'string') return input;
  const bytes = Buffer.from(input, 'base64');
  const padding = input.endsWith('==') ? 2 : input.endsWith('=') ? 1 : 0;
  const expected = Math.floor(((input.length - padding) * 3) / 4);
  if (bytes.length !== expected || input.length % 4 === 1 || (padding > 0 && input.length % 4 !== 0)) {
    throw new TxDecodeError('malformed tx: not standard base64');
  }
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length);
}

/** Message types of a REST tx (also for txs fetched through the REST fallback). */
export function messageTypes(body: JsonObject): string[] {
  const seen = new Set<string>();
  const messages = Array.isArray(body['messages']) ? body['messages'] : [];
  for (const msg of messages) {
    const url = (msg as JsonObject)['@type'];
    if (typeof url === 'string') seen.add(url.startsWith('/') ? url.slice(1) : url);
  }
  return [...seen];
}

/** auth_info.fee.amount of a REST tx. */
export function feeCoins(authInfo: JsonObject): Coin[] {
  const fee = authInfo['fee'] as JsonObject | null | undefined;
  const amount = fee?.['amount'];
  if (!Array.isArray(amount)) return [];
  return amount.map((c) => {
    const coin = c as JsonObject;
    return { denom: String(coin['denom'] ?? ''), amount: String(coin['amount'] ?? '') };
  });
}

function multisigKey(publicKey: JsonObject): MultisigKey {
  const members = Array.isArray(publicKey['public_keys']) ? publicKey['public_keys'] : [];
  return {
    threshold: Number(publicKey['threshold'] ?? 0),
    members: members.map((m) => {
      const member = m as JsonObject;
      return {
        typeUrl: String(member['@type'] ?? ''),
        key: Buffer.from(String(member['key'] ?? ''), 'base64'),
      };
    }),
  };
}

function deriveSigner(
  authInfo: JsonObject,
  prefix: string,
  signerAddress: (typeUrl: string, keyBase64: string) => Uint8Array,
  hash: string,
): { signer: string | undefined; signerSource: SignerSource } {
  const infos = authInfo['signer_infos'];
  const first = Array.isArray(infos) ? (infos[0] as JsonObject | undefined) : undefined;
  const publicKey = first?.['public_key'] as JsonObject | null | undefined;
  const payer = feePayer(authInfo);
  if (publicKey) {
    const typeUrl = String(publicKey['@type'] ?? '');
    const unknownKey = { signer: payer, signerSource: 'unknown_key' as const };
    // A type the registry lacks renders as {"@type","value"} (and sends the tx to the REST fallback).
    if (typeof publicKey['value'] === 'string') {
      const address = addressFromUnknownPubKey(typeUrl, Buffer.from(publicKey['value'], 'base64'));
      return address ? { signer: toBech32(address, prefix), signerSource: 'public_key' } : unknownKey;
    }
    const singleKeyAddress = () => {
      const key = publicKey['key'];
      if (typeof key !== 'string') throw new TxDecodeError(`signer public key ${typeUrl} has no key bytes`);
      return signerAddress(typeUrl, key);
    };
    try {
      const address =
        typeUrl === MULTISIG_PUBKEY ? multisigAddress(multisigKey(publicKey)) : singleKeyAddress();
      return { signer: toBech32(address, prefix), signerSource: 'public_key' };
    } catch (cause) {
      // A key type the registry renders but no address rule here covers (e.g. secp256r1).
      if (cause instanceof PubKeyError && cause.code === 'unsupported_pubkey') return unknownKey;
      if (cause instanceof AppError) {
        throw new AppError(cause.code, `tx ${hash}: ${cause.message}`, { cause });
      }
      throw cause;
    }
  }
  if (payer !== undefined) return { signer: payer, signerSource: 'fee_payer' };
  return { signer: undefined, signerSource: 'none' };
}

function feePayer(authInfo: JsonObject): string | undefined {
  const payer = (authInfo['fee'] as JsonObject | null | undefined)?.['payer'] as JsonValue | undefined;
  return typeof payer === 'string' && payer !== '' ? payer : undefined;
}
