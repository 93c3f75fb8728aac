import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import type { ApduTransport } from '../../src/vip/ledger.js';

/**
 * A software stand-in for the Ledger Ethereum app's APDU protocol (getAddress, signTransaction
 * for typed txs, signPersonalMessage), for the end-to-end CLI flows. The byte format it answers
 * is pinned by the genuine device recordings replayed in ledger.test.ts; this only adds a key.
 */
export function createEthAppEmulator(
  mnemonic: string,
  options: { onPersonalMessage?: (message: Buffer) => void } = {},
): ApduTransport {
  const root = HDKey.fromMasterSeed(mnemonicToSeedSync(mnemonic));
  let pending: { ins: number; path: string; data: Buffer; total: number } | undefined;
  const ok = (b: Buffer) => Buffer.concat([b, Buffer.from([0x90, 0x00])]);
  const keyOf = (path: string) => root.derive(path).privateKey as Uint8Array;
  const readPath = (d: Buffer) => {
    const n = d[0] ?? 0;
    const parts = Array.from({ length: n }, (_, i) => d.readUInt32BE(1 + i * 4));
    const path = 'm/' + parts.map((p) => (p >= 0x80000000 ? `${p - 0x80000000}'` : String(p))).join('/');
    return { path, rest: d.subarray(1 + n * 4) };
  };
  /** Typed tx = type byte + RLP list; the app knows it has everything once the list is complete. */
  const typedTxLength = (tx: Buffer): number => {
    const b = tx[1] ?? 0;
    if (b < 0xf8) return 2 + (b - 0xc0);
    const lenOfLen = b - 0xf7;
    return 2 + lenOfLen + tx.subarray(2, 2 + lenOfLen).readUIntBE(0, lenOfLen);
  };
  const sign = (digest: Uint8Array, path: string, vOffset: number) => {
    // 'recovered' is recovery byte first, then r‖s: the app's v‖r‖s with v = offset + parity.
    const sig = secp256k1.sign(digest, keyOf(path), { prehash: false, format: 'recovered' });
    return ok(Buffer.concat([Buffer.from([(sig[0] ?? 0) + vOffset]), Buffer.from(sig.subarray(1))]));
  };
  return {
    async exchange(apdu) {
      const a = Buffer.from(apdu);
      const [cla, ins, p1] = [a[0], a[1], a[2]];
      const data = a.subarray(5, 5 + (a[4] ?? 0));
      if (cla !== 0xe0) return Buffer.from([0x6e, 0x00]);
      if (ins === 0x02) {
        const pub = secp256k1.getPublicKey(keyOf(readPath(data).path), false);
        const addr = Buffer.from(keccak_256(pub.slice(1)).slice(12)).toString('hex');
        return ok(
          Buffer.concat([Buffer.from([pub.length]), pub, Buffer.from([40]), Buffer.from(addr, 'ascii')]),
        );
      }
      if (ins !== 0x04 && ins !== 0x08) return Buffer.from([0x6d, 0x00]);
      if (p1 === 0x00) {
        const { path, rest } = readPath(data);
        pending =
          ins === 0x08
            ? { ins, path, data: Buffer.from(rest.subarray(4)), total: rest.readUInt32BE(0) }
            : { ins, path, data: Buffer.from(rest), total: typedTxLength(rest) };
      } else if (pending?.ins === ins) {
        pending.data = Buffer.concat([pending.data, data]);
      } else {
        return Buffer.from([0x6a, 0x80]);
      }
      if (pending.data.length < pending.total) return ok(Buffer.alloc(0));
      const done = pending;
      pending = undefined;
      if (done.ins === 0x04) return sign(keccak_256(done.data), done.path, 0);
      options.onPersonalMessage?.(done.data);
      const prefix = Buffer.from(`\x19Ethereum Signed Message:\n${done.data.length}`, 'utf8');
      return sign(keccak_256(Buffer.concat([prefix, done.data])), done.path, 27);
    },
  };
}
