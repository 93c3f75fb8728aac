import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { getAddress, keccak256, serializeTransaction, type Hex, type TransactionSerializable } from 'viem';
import { toAccount } from 'viem/accounts';
import { AppError } from '../shared/errors.js';
import { eip191Message } from './cosmos/amino.js';
import type { CosmosSigner } from './signer.js';

/** What a Ledger transport offers (same shape as @ledgerhq/hw-transport's `exchange`). */
export interface ApduTransport {
  exchange(apdu: Uint8Array): Promise<Uint8Array>;
  close?(): Promise<void>;
}

const CLA = 0xe0;
const INS_GET_ADDRESS = 0x02;
const INS_SIGN_TX = 0x04;
const INS_SIGN_PERSONAL = 0x08;
const P1_FIRST = 0x00;
const P1_MORE = 0x80;
/** Payload bytes per APDU. ledgerjs (hw-app-eth) sends 150; the recorded device exchanges do too. */
const CHUNK = 150;

export function bip44Path(index: number): number[] {
  const hard = 0x80000000;
  return [44 + hard, 60 + hard, 0 + hard, 0, index];
}

function encodePath(path: number[]): Buffer {
  const buf = Buffer.alloc(1 + path.length * 4);
  buf[0] = path.length;
  path.forEach((p, i) => buf.writeUInt32BE(p >>> 0, 1 + i * 4));
  return buf;
}

/** Status words the Ethereum app answers, in words an operator can act on. */
function statusMessage(sw: number): string {
  switch (sw) {
    case 0x6985:
      return 'rejected on the device';
    case 0x6d00:
    case 0x6e00:
    case 0x6511:
      return 'the Ethereum app is not open on the device';
    case 0x5515:
    case 0x6b0c:
      return 'the device is locked; unlock it and open the Ethereum app';
    case 0x6a80:
      return 'the Ethereum app refused the data (enable "Blind signing" in its settings)';
    default:
      return `status 0x${sw.toString(16).padStart(4, '0')}`;
  }
}

async function exchange(
  t: ApduTransport,
  ins: number,
  p1: number,
  p2: number,
  data: Buffer,
): Promise<Buffer> {
  const apdu = Buffer.concat([Buffer.from([CLA, ins, p1, p2, data.length]), data]);
  let res: Buffer;
  try {
    res = Buffer.from(await t.exchange(apdu));
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw new AppError('ledger_error', `Ledger: transport failed: ${(err as Error).message}`, { cause: err });
  }
  const sw = res.length >= 2 ? res.readUInt16BE(res.length - 2) : 0;
  if (sw !== 0x9000) {
    throw new AppError('ledger_error', `Ledger: ${statusMessage(sw)}`, { details: { statusWord: sw } });
  }
  return res.subarray(0, res.length - 2);
}

/** Sends path-prefixed payloads in ledgerjs's chunking; answers the last response. */
async function chunked(t: ApduTransport, ins: number, head: Buffer, body: Buffer): Promise<Buffer> {
  let res: Buffer = Buffer.alloc(0);
  let offset = 0;
  do {
    const first = offset === 0;
    const room = first ? CHUNK - head.length : CHUNK;
    const part = body.subarray(offset, offset + room);
    res = await exchange(
      t,
      ins,
      first ? P1_FIRST : P1_MORE,
      0x00,
      first ? Buffer.concat([head, part]) : part,
    );
    offset += part.length;
  } while (offset < body.length);
  return res;
}

export interface LedgerAddress {
  /** Checksummed 0x address. */
  address: Hex;
  /** 65-byte uncompressed public key (0x04‖x‖y). */
  publicKey: Uint8Array;
}

function badResponse(what: string): AppError {
  return new AppError('ledger_bad_response', `Ledger: unexpected ${what} response from the Ethereum app`);
}

/**
 * Ethereum app `getAddress`. With `display` the device shows the address for the operator to
 * compare (P1=1); `chainId` is appended as 8 big-endian bytes, as ledgerjs does.
 */
export async function ledgerGetAddress(
  t: ApduTransport,
  path: number[],
  options: { display?: boolean; chainId?: bigint } = {},
): Promise<LedgerAddress> {
  let data = encodePath(path);
  if (options.chainId !== undefined) {
    const id = Buffer.alloc(8);
    id.writeBigUInt64BE(options.chainId);
    data = Buffer.concat([data, id]);
  }
  const res = await exchange(t, INS_GET_ADDRESS, options.display ? 0x01 : 0x00, 0x00, data);
  const pubLen = res[0] ?? 0;
  const publicKey = Uint8Array.from(res.subarray(1, 1 + pubLen));
  const addrLen = res[1 + pubLen] ?? 0;
  const ascii = res.subarray(2 + pubLen, 2 + pubLen + addrLen).toString('ascii');
  if (publicKey.length !== 65 || publicKey[0] !== 0x04 || !/^[0-9a-fA-F]{40}$/.test(ascii)) {
    throw badResponse('getAddress');
  }
  const address = getAddress(`0x${ascii}`);
  // The app derives both from one key; a mismatch means a corrupted or foreign answer.
  const derived = Buffer.from(keccak_256(publicKey.slice(1)).slice(12)).toString('hex');
  if (derived !== ascii.toLowerCase()) throw badResponse('getAddress (key and address disagree)');
  return { address, publicKey };
}

export interface LedgerSignature {
  /** As the device answers it: 0/1 for typed txs, 27/28 for personal messages. */
  v: number;
  r: Uint8Array;
  s: Uint8Array;
}

function parseSignature(res: Buffer, what: string): LedgerSignature {
  if (res.length < 65) throw badResponse(what);
  return {
    v: res[0] ?? 0,
    r: Uint8Array.from(res.subarray(1, 33)),
    s: Uint8Array.from(res.subarray(33, 65)),
  };
}

/**
 * Ethereum app `signTransaction` for typed (EIP-2718) transactions: path + unsigned serialized
 * tx. Legacy RLP txs need ledgerjs's extra rule about the EIP-155 marker and are not sent.
 */
export async function ledgerSignTransaction(
  t: ApduTransport,
  path: number[],
  unsigned: Uint8Array,
): Promise<LedgerSignature> {
  const first = unsigned[0] ?? 0xff;
  if (first >= 0x80) {
    throw new AppError('ledger_unsupported', 'only typed (EIP-2718) transactions are signed on the Ledger');
  }
  return parseSignature(
    await chunked(t, INS_SIGN_TX, encodePath(path), Buffer.from(unsigned)),
    'signTransaction',
  );
}

/** Ethereum app `signPersonalMessage`: path + 4-byte big-endian length + message. */
export async function ledgerSignPersonalMessage(
  t: ApduTransport,
  path: number[],
  message: Uint8Array,
): Promise<LedgerSignature> {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(message.length);
  const head = Buffer.concat([encodePath(path), length]);
  return parseSignature(
    await chunked(t, INS_SIGN_PERSONAL, head, Buffer.from(message)),
    'signPersonalMessage',
  );
}

/** A viem account whose key stays on the Ledger; only EIP-1559 transactions are signed. */
export async function createLedgerEvmAccount(
  t: ApduTransport,
  index: number,
  options: { display?: boolean; chainId?: bigint } = {},
) {
  const path = bip44Path(index);
  const { address } = await ledgerGetAddress(t, path, options);
  return toAccount({
    address,
    async signTransaction(tx: TransactionSerializable) {
      const unsigned = serializeTransaction(tx);
      const sig = await ledgerSignTransaction(t, path, Buffer.from(unsigned.slice(2), 'hex'));
      return serializeTransaction(tx, {
        // Typed txs answer the parity as 0/1; older firmware answered 27/28.
        yParity: sig.v === 0 || sig.v === 27 ? 0 : 1,
        r: `0x${Buffer.from(sig.r).toString('hex')}`,
        s: `0x${Buffer.from(sig.s).toString('hex')}`,
      });
    },
    signMessage: async () => {
      throw new AppError('ledger_unsupported', 'message signing is not used by the VIP tool');
    },
    signTypedData: async () => {
      throw new AppError('ledger_unsupported', 'typed-data signing is not used by the VIP tool');
    },
  });
}

/**
 * A Cosmos signer on the Ledger Ethereum app (as initia.js's LedgerKey did): Initia's
 * eth_secp256k1 key at m/44'/60'/0'/0/index, txs signed under SIGN_MODE_EIP_191 with
 * signPersonalMessage over the amino JSON sign doc. The device shows the JSON for review.
 */
export async function createLedgerCosmosSigner(
  t: ApduTransport,
  index: number,
  options: { display?: boolean } = {},
): Promise<CosmosSigner> {
  const path = bip44Path(index);
  const { publicKey } = await ledgerGetAddress(t, path, options);
  const compressed = secp256k1.Point.fromBytes(publicKey).toBytes(true);
  return {
    algo: 'eth_secp256k1',
    signMode: 'eip191',
    publicKey: async () => compressed,
    async sign(doc) {
      const { r, s } = await ledgerSignPersonalMessage(t, path, doc);
      let compact: Uint8Array;
      try {
        const sig = secp256k1.Signature.fromBytes(Buffer.concat([r, s]), 'compact');
        // Nodes reject high-S signatures (malleability); (r, n-s) signs the same digest.
        const n = secp256k1.Point.CURVE().n;
        compact = (sig.hasHighS() ? new secp256k1.Signature(sig.r, n - sig.s) : sig).toBytes('compact');
      } catch {
        throw badResponse('signPersonalMessage');
      }
      const digest = keccak_256(eip191Message(doc));
      if (!secp256k1.verify(compact, digest, compressed, { prehash: false })) {
        throw new AppError(
          'ledger_bad_signature',
          'Ledger: the signature does not match the device key (another account or app answered?)',
        );
      }
      return compact;
    },
  };
}

export const txHashOf = (serialized: Hex): Hex => keccak256(serialized);
