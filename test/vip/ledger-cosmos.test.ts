import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { TxRaw } from '@initia/initia.proto/cosmos/tx/v1beta1/tx.js';
import { MsgExecuteContract } from '@initia/initia.proto/cosmwasm/wasm/v1/tx.js';
import { toBech32 } from '../../src/shared/address.js';
import { decodeTx, verifySignature } from '../../src/sim/vip/tx-decode.js';
import { aminoSignBytes, signCosmosTx, type UnsignedCosmosTx } from '../../src/vip/cosmos/tx.js';
import { createLedgerCosmosSigner, type ApduTransport } from '../../src/vip/ledger.js';
import { openLedgerUsb } from '../../src/vip/ledger-usb.js';
import { addressOfPublicKey } from '../../src/vip/signer.js';
import { chainArgv, FAKE_MOVE_MODULE, FAKE_WASM, scoresCsv, startHarness, type Harness } from './harness.js';
import { deployArgv, updateScoresArgv } from './cli-args.js';
import { createEthAppEmulator } from './ledger-emulator.js';
import { LEDGER_MNEMONIC } from './ledger-fixture.js';
import { vipRunner } from './in-process.js';
import { sampleTx } from './sample-tx.js';

const OTHER_MNEMONIC = 'legal winner thank year wave sausage worth useful legal winner thank yellow';

/** `vip <args>` in-process with a Ledger emulator as the USB transport; logs are captured. */
function ledgerRunner(
  h: Harness,
  transport: () => ApduTransport = () => createEthAppEmulator(LEDGER_MNEMONIC),
) {
  const logs: string[] = [];
  const run = vipRunner({}, { logs, openLedger: async () => transport() });
  const base = (vm: 'move' | 'wasm') =>
    chainArgv({ vm, rest: h.server.url, rpc: h.server.url, chainId: h.chain.options.chainId }, '--ledger');
  return { run, base, logs };
}

async function ledgerAddress(): Promise<string> {
  const signer = await createLedgerCosmosSigner(createEthAppEmulator(LEDGER_MNEMONIC), 0);
  return toBech32(addressOfPublicKey(await signer.publicKey(), 'eth_secp256k1'), 'init');
}

/** Every tx the chain included was signed under SIGN_MODE_EIP_191. */
function modesOf(h: Harness, hashes: string[]): string[] {
  return hashes.map((hash) => decodeTx(h.chain.tx(hash)?.raw ?? new Uint8Array()).signMode);
}

describe('Ledger (Ethereum app, SIGN_MODE_EIP_191) on a Move rollup', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('move');
    h.chain.fundAccount(await ledgerAddress());
  });
  afterAll(async () => h?.close());

  it('deploy, update-scores and finalize are signed on the device and accepted by the chain', async () => {
    const r = ledgerRunner(h);
    const mv = await h.file('vip_score.mv', FAKE_MOVE_MODULE);
    const deployed = await r.run(deployArgv(r.base('move'), 'move', mv, '2', `${h.dir}/rec.json`));
    const record = deployed.record as { txHashes: string[]; contractAddress: string };
    expect(record.txHashes.length).toBe(3);
    expect(modesOf(h, record.txHashes)).toEqual(['eip191', 'eip191', 'eip191']);
    const module = h.chain.moveModules.values().next().value;
    expect(module?.initStage).toBe(2n);

    const { csv, total } = scoresCsv(300);
    const file = await h.file('s2.csv', csv);
    const before = h.chain.stats.includedTxs;
    const scored = await r.run(
      updateScoresArgv(
        r.base('move'),
        record.contractAddress,
        '2',
        file,
        '--max-batch',
        '100',
        '--progress',
        `${h.dir}/p2.json`,
      ),
    );
    expect(scored).toMatchObject({ entries: 300, onChainTotal: String(total), totalsChecked: true });
    expect(h.chain.stats.includedTxs - before).toBe(3);
    // --ledger-confirm asks the device to display the address (getAddress P1=1) before signing.
    const apdus: string[] = [];
    const emu = createEthAppEmulator(LEDGER_MNEMONIC);
    const confirm = ledgerRunner(h, () => ({
      exchange: (apdu) => {
        apdus.push(Buffer.from(apdu).toString('hex'));
        return emu.exchange(apdu);
      },
    }));
    await confirm.run([
      'finalize',
      ...confirm.base('move'),
      '--ledger-confirm',
      '--contract',
      record.contractAddress,
      '--stage',
      '2',
    ]);
    expect(apdus[0]?.startsWith('e0020100')).toBe(true);
    expect(apdus.some((a) => a.startsWith('e0080000'))).toBe(true);
    expect(module?.stages.get(2n)?.isFinalized).toBe(true);
    expect(r.logs.join('')).not.toMatch(/junk|test test/);
  });
});

describe('Ledger (Ethereum app, SIGN_MODE_EIP_191) on a Wasm rollup', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('wasm');
    h.chain.fundAccount(await ledgerAddress());
  });
  afterAll(async () => h?.close());

  it('store, instantiate, update-scores and finalize through the device; the chain verifies each', async () => {
    const r = ledgerRunner(h);
    const wasm = await h.file('vip_score.wasm', FAKE_WASM);
    const deployed = await r.run(
      deployArgv(
        r.base('wasm'),
        'wasm',
        wasm,
        '4',
        `${h.dir}/rec.json`,
        '--label',
        'vip score <ledger> & co',
      ),
    );
    const record = deployed.record as { txHashes: string[]; contractAddress: string };
    expect(modesOf(h, record.txHashes)).toEqual(['eip191', 'eip191']);
    const contract = record.contractAddress;
    expect(h.chain.wasmContract(contract)?.admin).toBe(await ledgerAddress());

    // Amounts above 2^53 go through Go's float64 in the node's sign doc; both sides agree.
    const big = `0xab${'1'.padStart(38, '0')},9007199254740993\n0xab${'2'.padStart(38, '0')},5\n`;
    const file = await h.file('s4.csv', big);
    const scored = await r.run(
      updateScoresArgv(r.base('wasm'), contract, '4', file, '--progress', `${h.dir}/p4.json`),
    );
    expect(scored).toMatchObject({ entries: 2, onChainTotal: '9007199254740998' });
    await r.run(['finalize', ...r.base('wasm'), '--contract', contract, '--stage', '4']);
    expect(h.chain.wasmContract(contract)?.model.stages.get(4n)?.isFinalized).toBe(true);
  });
});

describe('Ledger Cosmos signer details', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('wasm');
  });
  afterAll(async () => h?.close());

  async function unsigned(pub: Uint8Array, extra: Partial<UnsignedCosmosTx> = {}): Promise<UnsignedCosmosTx> {
    const sender = toBech32(addressOfPublicKey(pub, 'eth_secp256k1'), 'init');
    const value = MsgExecuteContract.encode({
      sender,
      contract: 'init1fuyxwxlsgjkfjmxfthq8427dm2am3ya3cwcdr8gls29l7jadtazswg0k5g',
      msg: Buffer.from(JSON.stringify({ update_scores: { stage: 1, scores: [[sender, 5]] } })),
      funds: [],
    }).finish();
    const message = { typeUrl: '/cosmwasm.wasm.v1.MsgExecuteContract', value };
    return {
      ...sampleTx(message, pub, { chainId: 'miniwasm-test', accountNumber: 12n, sequence: 3n }),
      ...extra,
    };
  }

  it('the device is shown the amino JSON doc, mode_info says EIP_191, and the chain verifies it', async () => {
    const seen: Buffer[] = [];
    const signer = await createLedgerCosmosSigner(
      createEthAppEmulator(LEDGER_MNEMONIC, { onPersonalMessage: (m) => seen.push(m) }),
      0,
    );
    const tx = await unsigned(await signer.publicKey());
    const { raw } = await signCosmosTx(tx, signer);
    expect(seen[0]?.toString('utf8')).toBe(Buffer.from(aminoSignBytes(tx)).toString('utf8'));
    expect(seen[0]?.toString('utf8')).toMatch(/^\{"account_number":"12","chain_id":"miniwasm-test",/);
    const decoded = decodeTx(raw);
    expect(decoded.signMode).toBe('eip191');
    expect(verifySignature(decoded, 'miniwasm-test', 12n)).toBe(true);
    expect(verifySignature(decoded, 'miniwasm-test', 13n)).toBe(false);
    // The same doc under SIGN_MODE_DIRECT is a different message: a node would refuse it.
    expect(verifySignature({ ...decoded, signMode: 'direct' }, 'miniwasm-test', 12n)).toBe(false);
  });

  it('a high-S answer from the device is normalised (nodes reject high-S)', async () => {
    const emu = createEthAppEmulator(LEDGER_MNEMONIC);
    const n = secp256k1.Point.CURVE().n;
    const flipping: ApduTransport = {
      async exchange(apdu) {
        const res = Buffer.from(await emu.exchange(apdu));
        if (apdu[1] !== 0x08 || res.length !== 67) return res;
        const s = BigInt(`0x${res.subarray(33, 65).toString('hex')}`);
        const high = Buffer.from((n - s).toString(16).padStart(64, '0'), 'hex');
        return Buffer.concat([res.subarray(0, 33), high, res.subarray(65)]);
      },
    };
    const signer = await createLedgerCosmosSigner(flipping, 0);
    const { raw } = await signCosmosTx(await unsigned(await signer.publicKey()), signer);
    const decoded = decodeTx(raw);
    expect(secp256k1.Signature.fromBytes(decoded.signature, 'compact').hasHighS()).toBe(false);
    expect(verifySignature(decoded, 'miniwasm-test', 12n)).toBe(true);
  });

  it('a signature from another key than the one getAddress reported is refused before broadcast', async () => {
    const mine = createEthAppEmulator(LEDGER_MNEMONIC);
    const other = createEthAppEmulator(OTHER_MNEMONIC);
    const mixed: ApduTransport = { exchange: (apdu) => (apdu[1] === 0x02 ? mine : other).exchange(apdu) };
    const signer = await createLedgerCosmosSigner(mixed, 0);
    await expect(signCosmosTx(await unsigned(await signer.publicKey()), signer)).rejects.toMatchObject({
      code: 'ledger_bad_signature',
    });
  });

  it('the chain rejects a tampered EIP-191 tx as unauthorized (code 4)', async () => {
    const signer = await createLedgerCosmosSigner(createEthAppEmulator(LEDGER_MNEMONIC), 0);
    const pub = await signer.publicKey();
    const addr = toBech32(addressOfPublicKey(pub, 'eth_secp256k1'), 'init');
    const acc = h.chain.fundAccount(addr);
    const tx = await unsigned(pub, {
      chainId: h.chain.options.chainId,
      accountNumber: acc.accountNumber,
      sequence: 0n,
    });
    const { raw } = await signCosmosTx(tx, signer);
    const parts = TxRaw.decode(raw);
    const sig = Uint8Array.from(parts.signatures[0] ?? []);
    sig[10] = (sig[10] ?? 0) ^ 1;
    const bad = TxRaw.encode({ ...parts, signatures: [sig] }).finish();
    expect(h.chain.broadcastSync(bad)).toMatchObject({ code: 4 });
    // A different memo changes the amino doc (memo is signed), so the original signature fails.
    const other = await signCosmosTx({ ...tx, memo: 'x' }, signer);
    const swapped = TxRaw.encode({ ...TxRaw.decode(other.raw), signatures: parts.signatures }).finish();
    expect(h.chain.broadcastSync(swapped).log).toMatch(/unauthorized/);
    // The genuine tx is accepted (its message then fails in the model: no such contract).
    expect(h.chain.broadcastSync(raw).code).toBe(0);
  });
});

describe('--ledger option errors and USB transport loading', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('move');
  });
  afterAll(async () => h?.close());

  it('refuses secp256k1 and key flags together with --ledger, and a build without a transport', async () => {
    const r = ledgerRunner(h);
    await expect(r.run(['status', ...r.base('move'), '--key-type', 'secp256k1'])).rejects.toMatchObject({
      code: 'ledger_unsupported',
    });
    await expect(r.run(['status', ...r.base('move'), '--key-env', 'X'])).rejects.toMatchObject({
      code: 'invalid_option',
    });
    await expect(vipRunner({})(['status', ...r.base('move')])).rejects.toMatchObject({
      code: 'ledger_unavailable',
    });
  });

  it('USB: a missing package, a missing device, and a working transport', async () => {
    await expect(
      openLedgerUsb(async () => {
        throw new Error('Cannot find package');
      }),
    ).rejects.toMatchObject({
      code: 'ledger_unavailable',
      message: expect.stringMatching(/npm install @ledgerhq\/hw-transport-node-hid-noevents/),
    });
    const noDevice = {
      default: {
        open: async () => {
          throw new Error('NoDevice');
        },
      },
    };
    await expect(openLedgerUsb(async () => noDevice)).rejects.toMatchObject({
      code: 'ledger_unavailable',
      message: expect.stringMatching(/no Ledger found on USB.*Ethereum app/),
    });
    let closed = false;
    const emu = createEthAppEmulator(LEDGER_MNEMONIC);
    const working = {
      default: {
        open: async () => ({
          exchange: async (apdu: Buffer) => Buffer.from(await emu.exchange(apdu)),
          close: async () => {
            closed = true;
          },
        }),
      },
    };
    const t = await openLedgerUsb(async () => working);
    const signer = await createLedgerCosmosSigner(t, 0);
    expect(toBech32(addressOfPublicKey(await signer.publicKey(), 'eth_secp256k1'), 'init')).toBe(
      await ledgerAddress(),
    );
    await t.close?.();
    expect(closed).toBe(true);
  });

  it('USB: the real loader on a machine without a Ledger answers ledger_unavailable', async () => {
    // Either the package is not installed (install hint) or no device is plugged in (connect hint).
    await expect(openLedgerUsb()).rejects.toMatchObject({ code: 'ledger_unavailable' });
  });
});
