import { readFile } from 'node:fs/promises';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync, validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { InputError } from '../shared/errors.js';
import { eip191Message } from './cosmos/amino.js';

/** eth_secp256k1 is Initia's default (coin type 60, keccak address, keccak-signed SignDoc). */
export type KeyAlgo = 'eth_secp256k1' | 'secp256k1';

/**
 * How a signer signs a Cosmos tx: `direct` signs the protobuf SignDoc (local keys); `eip191`
 * signs the legacy amino JSON StdSignDoc as an Ethereum personal message (what a Ledger running
 * the Ethereum app can sign; Initia verifies it under SIGN_MODE_EIP_191).
 */
export type SignMode = 'direct' | 'eip191';

/**
 * Signs Cosmos txs. Implementations: a local key (env/file) and Ledger.
 * Key material never leaves the implementation and is never part of an error or log.
 */
export interface CosmosSigner {
  readonly algo: KeyAlgo;
  readonly signMode: SignMode;
  /** Compressed 33-byte public key. */
  publicKey(): Promise<Uint8Array>;
  /**
   * 64-byte r‖s (low-S). `direct`: over the SignDoc bytes. `eip191`: over the amino JSON
   * sign doc bytes, which the signer wraps in the EIP-191 prefix itself (as the device does).
   */
  sign(signBytes: Uint8Array): Promise<Uint8Array>;
}

export interface KeySource {
  /** Name of an environment variable holding a mnemonic or 0x-hex private key. */
  keyEnv?: string;
  /** Path of a file holding a mnemonic or 0x-hex private key. */
  keyFile?: string;
  /** BIP-44 account index for mnemonics. */
  index?: number;
  algo: KeyAlgo;
}

/** Loads the secret from env or file (never from argv) and returns the 32-byte private key. */
export async function loadPrivateKey(source: KeySource, env: NodeJS.ProcessEnv): Promise<Uint8Array> {
  let secret: string | undefined;
  if (source.keyEnv !== undefined) {
    secret = env[source.keyEnv];
    if (secret === undefined || secret.trim() === '') {
      throw new InputError('missing_key', `environment variable ${source.keyEnv} is empty or unset`);
    }
  } else if (source.keyFile !== undefined) {
    secret = await readFile(source.keyFile, 'utf8').catch(() => {
      throw new InputError('missing_key', `cannot read key file ${source.keyFile}`);
    });
  } else {
    throw new InputError('missing_key', 'a key is required: --key-env NAME, --key-file PATH or --ledger');
  }
  return privateKeyFromSecret(secret, source.algo, source.index ?? 0);
}

export function privateKeyFromSecret(secret: string, algo: KeyAlgo, index: number): Uint8Array {
  const text = secret.trim();
  const hex = text.startsWith('0x') ? text.slice(2) : text;
  if (/^[0-9a-fA-F]{64}$/.test(hex)) return Uint8Array.from(Buffer.from(hex, 'hex'));
  const words = text.split(/\s+/).join(' ');
  if (!validateMnemonic(words, wordlist)) {
    // Deliberately no echo of the secret.
    throw new InputError(
      'invalid_key',
      'key is neither a 32-byte hex private key nor a valid BIP-39 mnemonic',
    );
  }
  const coinType = algo === 'eth_secp256k1' ? 60 : 118;
  const child = HDKey.fromMasterSeed(mnemonicToSeedSync(words)).derive(`m/44'/${coinType}'/0'/0/${index}`);
  if (!child.privateKey) throw new InputError('invalid_key', 'derivation gave no private key');
  return child.privateKey;
}

/** The key type's digest: ethsecp256k1 verifies keccak256, secp256k1 verifies sha256. */
export function digestFor(algo: KeyAlgo, bytes: Uint8Array): Uint8Array {
  return algo === 'eth_secp256k1' ? keccak_256(bytes) : sha256(bytes);
}

export function createLocalSigner(
  privateKey: Uint8Array,
  algo: KeyAlgo,
  signMode: SignMode = 'direct',
): CosmosSigner {
  const pub = secp256k1.getPublicKey(privateKey, true);
  return {
    algo,
    signMode,
    publicKey: async () => pub,
    sign: async (signBytes) => {
      const message = signMode === 'eip191' ? eip191Message(signBytes) : signBytes;
      return secp256k1.sign(digestFor(algo, message), privateKey, { prehash: false, lowS: true });
    },
  };
}

/** 20-byte account address of a compressed public key. */
export function addressOfPublicKey(pub: Uint8Array, algo: KeyAlgo): Uint8Array {
  if (algo === 'secp256k1') return ripemd160(sha256(pub));
  const uncompressed = secp256k1.Point.fromBytes(pub).toBytes(false);
  return keccak_256(uncompressed.slice(1)).slice(12);
}
