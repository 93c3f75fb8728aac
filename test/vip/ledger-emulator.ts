import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import type { ApduTransport } from '../../src/vip/ledger.js';

/**
 * A software stand-in for the Ledger Ethereum app's APDU protocol (getAddress, signTransaction
 * for typed txs), used only to produce the recording that the Ledger test replays.
 */
export function createEthAppEmulator(mnemonic: string): ApduTransport {
  const root = HDKey.fromMasterSeed(mnemonicToSeedSync(mnemonic));
  let pending: { path: string; data: Buffer } | undefined;
  const ok = (b: Buffer) => Buffer.concat([b, Buffer.from([0x90, 0x00])]);
  const readPath = (d: Buffer) => {
    const n = d[0] ?? 0;
    const parts = Array.from({ length: n }, (_, i) => d.readUInt32BE(1 + i * 4));
    const path = 'm/' + parts.map((p) => (p >= 0x80000000 ? `${p - 0x80000000}'` : String(p))).join('/');
    return { path, rest: d.subarray(1 + n * 4) };
  };
  const expectedLength = (tx: Buffer): number => {
    const b = tx[1] ?? 0;
    if (b < 0xf8) return 2 + (b - 0xc0);
    const lenOfLen = b - 0xf7;
    return 2 + lenOfLen + tx.subarray(2, 2 + lenOfLen).readUIntBE(0, lenOfLen);
  };
  return {
    async exchange(apdu) {
      const a = Buffer.from(apdu);
      const [cla, ins, p1] = [a[0], a[1], a[2]];
      const data = a.subarray(5, 5 + (a[4] ?? 0));
      if (cla !== 0xe0) return Buffer.from([0x6e, 0x00]);
      if (ins === 0x02) {
        const key = root.derive(readPath(data).path);
        const pub = secp256k1.getPublicKey(key.privateKey as Uint8Array, false);
        const addr = Buffer.from(keccak_256(pub.slice(1)).slice(12)).toString('hex');
        return ok(
          Buffer.concat([Buffer.from([pub.length]), pub, Buffer.from([40]), Buffer.from(addr, 'ascii')]),
        );
      }
      if (ins === 0x04) {
        if (p1 === 0x00) {
          const { path, rest } = readPath(data);
          pending = { path, data: Buffer.from(rest) };
        } else if (pending) pending.data = Buffer.concat([pending.data, data]);
        if (!pending || pending.data.length < expectedLength(pending.data)) return ok(Buffer.alloc(0));
        const key = root.derive(pending.path);
        const sig = secp256k1.sign(keccak_256(pending.data), key.privateKey as Uint8Array, {
          prehash: false,
          format: 'recovered',
        });
        pending = undefined;
        // 'recovered' format is recovery byte first, then r‖s.
        return ok(Buffer.from(sig));
      }
      return Buffer.from([0x6d, 0x00]);
    },
  };
}

/** Wraps a transport and records every exchange (hex) for replay. */
export function recording(inner: ApduTransport, log: { apdu: string; response: string }[]): ApduTransport {
  return {
    async exchange(apdu) {
      const response = await inner.exchange(apdu);
      log.push({ apdu: Buffer.from(apdu).toString('hex'), response: Buffer.from(response).toString('hex') });
      return response;
    },
  };
}

/** Replays a recording strictly: every APDU must equal the recorded one, in order. */
export function replaying(
  log: { apdu: string; response: string }[],
): ApduTransport & { remaining(): number } {
  let i = 0;
  return {
    remaining: () => log.length - i,
    async exchange(apdu) {
      const step = log[i++];
      const got = Buffer.from(apdu).toString('hex');
      if (!step || step.apdu !== got) throw new Error(`unexpected APDU #${i}: ${got}`);
      return Buffer.from(step.response, 'hex');
    },
  };
}
