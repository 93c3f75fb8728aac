import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MsgExecuteContract } from '@initia/initia.proto/cosmwasm/wasm/v1/tx.js';
import { MsgExecute } from '@initia/initia.proto/initia/move/v1/tx.js';
import { decodeTx, verifySignature } from '../../src/sim/vip/tx-decode.js';
import { toBech32 } from '../../src/shared/address.js';
import { InputError } from '../../src/shared/errors.js';
import { normaliseMoveAddress } from '../../src/vip/move/backend.js';
import { b64, bcsAddress, bcsU64, bcsVector } from '../../src/vip/move/bcs.js';
import { addressOfPublicKey, createLocalSigner, privateKeyFromSecret } from '../../src/vip/signer.js';
import { signCosmosTx } from '../../src/vip/cosmos/tx.js';
import { SAMPLES_ROOT } from '../fixtures/decode/samples.js';
import { sampleTx } from './sample-tx.js';

const MNEMONIC = 'test test test test test test test test test test test junk';

/** The error `fn` throws; a failed assertion when it returns instead. */
function errorOf(fn: () => unknown): Error {
  let returned: unknown;
  try {
    returned = fn();
  } catch (err) {
    return err as Error;
  }
  throw new Error(`expected a throw, got ${typeof returned}`);
}
const samples = path.join(SAMPLES_ROOT, 'generated', 'initia.js-1.1.0', 'signed-txs.json');

interface Sample {
  base64: string;
  hash: string;
  restJson: {
    body: { messages: Record<string, unknown>[] };
    auth_info: { signer_infos: { sequence: string }[] };
  };
}

describe('Cosmos signing matches initia.js 1.1.0 byte for byte', () => {
  it('MsgExecute signed with the eth_secp256k1 key of the test mnemonic (account 7, minimove-1)', async () => {
    const all = JSON.parse(await readFile(samples, 'utf8')) as Record<string, Sample>;
    const sample = all.msgExecute as Sample;
    const m = sample.restJson.body.messages[0] as {
      sender: string;
      module_address: string;
      module_name: string;
      function_name: string;
      args: string[];
    };
    const key = privateKeyFromSecret(MNEMONIC, 'eth_secp256k1', 0);
    const signer = createLocalSigner(key, 'eth_secp256k1');
    const value = MsgExecute.encode({
      sender: m.sender,
      moduleAddress: m.module_address,
      moduleName: m.module_name,
      functionName: m.function_name,
      typeArgs: [],
      args: m.args.map((a) => Buffer.from(a, 'base64')),
    }).finish();
    const message = { typeUrl: '/initia.move.v1.MsgExecute', value };
    const { raw, hash } = await signCosmosTx(
      sampleTx(message, await signer.publicKey(), { chainId: 'minimove-1', accountNumber: 7n, sequence: 1n }),
      signer,
    );
    expect(Buffer.from(raw).toString('base64')).toBe(sample.base64);
    expect(hash).toBe(sample.hash);
    expect(toBech32(addressOfPublicKey(await signer.publicKey(), 'eth_secp256k1'), 'init')).toBe(m.sender);
    // The chain model accepts it, and rejects it under another chain id.
    const decoded = decodeTx(raw);
    expect(verifySignature(decoded, 'minimove-1', 7n)).toBe(true);
    expect(verifySignature(decoded, 'minimove-2', 7n)).toBe(false);
  });

  it('the initia.js MsgExecuteContract sample verifies in the chain model', async () => {
    const all = JSON.parse(await readFile(samples, 'utf8')) as Record<string, Sample>;
    const sample = all.msgExecuteContract as Sample;
    const decoded = decodeTx(Buffer.from(sample.base64, 'base64'));
    expect(decoded.msgs[0]?.type).toBe('/cosmwasm.wasm.v1.MsgExecuteContract');
    expect(
      MsgExecuteContract.decode(
        MsgExecuteContract.encode(decoded.msgs[0]?.value as MsgExecuteContract).finish(),
      ),
    ).toBeTruthy();
    const ok = [...['miniwasm-1', 'miniwasm-2']].some((c) =>
      [0n, 1n, 2n, 3n, 7n].some((n) => verifySignature(decoded, c, n)),
    );
    expect(ok).toBe(true);
  });
});

describe('keys and BCS golden vectors (docs/vip-contracts.md §5.3, §5.5)', () => {
  it('raw key 0x11…11 → init1r8n7…k8h; secp256k1 derivation differs (coin type 118)', () => {
    const k = privateKeyFromSecret(`0x${'11'.repeat(32)}`, 'eth_secp256k1', 0);
    const pub = createLocalSigner(k, 'eth_secp256k1');
    return pub.publicKey().then((p) => {
      expect(toBech32(addressOfPublicKey(p, 'eth_secp256k1'), 'init')).toBe(
        'init1r8n7xah8cgfm0el8u3kvwzja6zrd4le2juuk8h',
      );
      const cosmos = privateKeyFromSecret(MNEMONIC, 'secp256k1', 0);
      expect(
        Buffer.from(cosmos).equals(Buffer.from(privateKeyFromSecret(MNEMONIC, 'eth_secp256k1', 0))),
      ).toBe(false);
    });
  });

  it('invalid secrets are refused with invalid_key, without echoing them', () => {
    // [secret, a part of it that must not appear in the error]
    const secrets = [
      ['correct horse battery staple not a mnemonic at all', 'horse'],
      // Twelve valid words whose checksum is wrong (the test mnemonic with "junk" changed).
      ['test test test test test test test test test test test test', 'test test'],
      // One hex digit short of a private key.
      [`0x${'ab'.repeat(31)}c`, 'abab'],
    ] as const;
    for (const [secret, telltale] of secrets) {
      // Caught here rather than with try/catch around unreachable(): that catch would also catch
      // unreachable()'s own error, and an accepted secret would pass.
      const thrown = errorOf(() => privateKeyFromSecret(secret, 'eth_secp256k1', 0));
      expect(thrown, secret).toBeInstanceOf(InputError);
      expect(thrown, secret).toMatchObject({ code: 'invalid_key' });
      const text = JSON.stringify({ message: thrown.message, details: (thrown as InputError).details });
      expect(text, secret).not.toContain(telltale);
    }
  });

  it('BCS vectors', () => {
    expect(Buffer.from(bcsVector([bcsU64(100n), bcsU64(250n)])).toString('hex')).toBe(
      '026400000000000000fa00000000000000',
    );
    expect(b64(bcsU64(5n))).toBe('BQAAAAAAAAA=');
    const addr = normaliseMoveAddress('init1wgl839zxdh5c89mvc4ps97wyx6ejjygxs4qmcx', 'init');
    expect(b64(bcsAddress(addr))).toBe('AAAAAAAAAAAAAAAAcj54lEZt6YOXbMVDAvnENrMpEQY=');
  });
});
