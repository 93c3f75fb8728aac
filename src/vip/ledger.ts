import { getAddress, keccak256, serializeTransaction, type Hex, type TransactionSerializable } from 'viem';
import { toAccount } from 'viem/accounts';
import { AppError } from '../shared/errors.js';

/** What a Ledger transport offers (same shape as @ledgerhq/hw-transport's `exchange`). */
export interface ApduTransport {
  exchange(apdu: Uint8Array): Promise<Uint8Array>;
}

const CLA = 0xe0;
const INS_GET_ADDRESS = 0x02;
const INS_SIGN_TX = 0x04;
const CHUNK = 255;

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

async function exchange(t: ApduTransport, ins: number, p1: number, data: Buffer): Promise<Buffer> {
  const apdu = Buffer.concat([Buffer.from([CLA, ins, p1, 0x00, data.length]), data]);
  const res = Buffer.from(await t.exchange(apdu));
  const sw = res.length >= 2 ? res.readUInt16BE(res.length - 2) : 0;
  if (sw !== 0x9000) {
    const why =
      sw === 0x6985
        ? 'rejected on the device'
        : sw === 0x6d00 || sw === 0x6e00
          ? 'Ethereum app not open'
          : `status 0x${sw.toString(16)}`;
    throw new AppError('ledger_error', `Ledger: ${why}`);
  }
  return res.subarray(0, res.length - 2);
}

/** Ethereum app `getAddress` (no on-screen confirmation). */
export async function ledgerGetAddress(t: ApduTransport, path: number[]): Promise<Hex> {
  const res = await exchange(t, INS_GET_ADDRESS, 0x00, encodePath(path));
  const pubLen = res[0] ?? 0;
  const addrLen = res[1 + pubLen] ?? 0;
  const ascii = res.subarray(2 + pubLen, 2 + pubLen + addrLen).toString('ascii');
  return getAddress(`0x${ascii}`);
}

/** Ethereum app `signTransaction`: path + unsigned serialized tx, sent in 255-byte chunks. */
export async function ledgerSignTransaction(t: ApduTransport, path: number[], unsigned: Uint8Array) {
  const payload = Buffer.concat([encodePath(path), Buffer.from(unsigned)]);
  let res: Buffer = Buffer.alloc(0);
  for (let off = 0; off < payload.length; off += CHUNK) {
    res = await exchange(t, INS_SIGN_TX, off === 0 ? 0x00 : 0x80, payload.subarray(off, off + CHUNK));
  }
  const v = res[0] ?? 0;
  return {
    // Typed (EIP-1559) txs answer the parity as 0/1; older firmware answered 27/28.
    yParity: v === 0 || v === 27 ? 0 : 1,
    r: `0x${res.subarray(1, 33).toString('hex')}` as Hex,
    s: `0x${res.subarray(33, 65).toString('hex')}` as Hex,
  };
}

/** A viem account whose key stays on the Ledger; only EIP-1559 transactions are signed. */
export async function createLedgerEvmAccount(t: ApduTransport, index: number) {
  const path = bip44Path(index);
  const address = await ledgerGetAddress(t, path);
  return toAccount({
    address,
    async signTransaction(tx: TransactionSerializable) {
      const unsigned = serializeTransaction(tx);
      const sig = await ledgerSignTransaction(t, path, Buffer.from(unsigned.slice(2), 'hex'));
      return serializeTransaction(tx, sig);
    },
    signMessage: async () => {
      throw new AppError('ledger_unsupported', 'message signing is not used by the VIP tool');
    },
    signTypedData: async () => {
      throw new AppError('ledger_unsupported', 'typed-data signing is not used by the VIP tool');
    },
  });
}

export const txHashOf = (serialized: Hex): Hex => keccak256(serialized);
