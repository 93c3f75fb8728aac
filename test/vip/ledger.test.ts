import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { Command } from 'commander';
import { pino } from 'pino';
import { mnemonicToAccount } from 'viem/accounts';
import {
  keccak256,
  recoverAddress,
  recoverMessageAddress,
  recoverTransactionAddress,
  serializeTransaction,
  type TransactionSerialized,
} from 'viem';
import { registerVip } from '../../src/bin/commands/vip.js';
import {
  bip44Path,
  createLedgerEvmAccount,
  ledgerGetAddress,
  ledgerSignPersonalMessage,
  ledgerSignTransaction,
} from '../../src/vip/ledger.js';
import { startAnvil } from './anvil.js';
import { createEthAppEmulator } from './ledger-emulator.js';
import { LEDGER_MNEMONIC, ledgerFixtureTx } from './ledger-fixture.js';
import { recordingNamed, replaying } from './ledger-replay.js';

const H = 0x80000000;
/** 44'/60'/0'/0'/0: the path the older ledgerjs recordings use (account level hardened). */
const HARDENED_PATH = [44 + H, 60 + H, 0 + H, 0 + H, 0];
/** The device behind the 44'/60'/0'/0/0 recordings, as its own getAddress answered. */
const DEVICE_B = '0x6cBCD73CD8e8a42844662f0A0e76D7F79Afd933d';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

describe('Ledger Ethereum app over genuine device recordings (no device)', () => {
  it('getAddress: exact APDU; key and address parsed and consistent', async () => {
    const t = replaying(recordingNamed("getAddress 44'/60'/0'/0'/0"));
    const got = await ledgerGetAddress(t, HARDENED_PATH);
    expect(t.remaining()).toBe(0);
    expect(got.address).toBe('0xCbA98362e199c41E1864D0923AF9646d3A648451');
    expect(hex(got.publicKey)).toBe(
      '04df00ad3869baad7ce54f4d560ba7f268d542df8f2679a5898d78a690c3db8f9833d2973671cb14b088e91bdf7c0ab00029a576473c0e12f84d252e630bb3809b',
    );
  });

  it('getAddress with on-device display and chain id: exact APDU (P1=1, 8-byte chain id)', async () => {
    const t = replaying(recordingNamed("getAddress 44'/60'/0'/0/0 display chainId=17000"));
    const got = await ledgerGetAddress(t, bip44Path(0), { display: true, chainId: 17000n });
    expect(t.remaining()).toBe(0);
    expect(got.address).toBe(DEVICE_B);
  });

  it('the EVM account signs an EIP-1559 tx into the recorded APDU; it recovers to the device address', async () => {
    const t = replaying([
      ...recordingNamed("getAddress 44'/60'/0'/0/0 display chainId=17000"),
      ...recordingNamed("signTransaction 44'/60'/0'/0/0 eip1559 one chunk"),
    ]);
    const account = await createLedgerEvmAccount(t, 0, { display: true, chainId: 17000n });
    const signed = await account.signTransaction({
      type: 'eip1559',
      chainId: 1,
      nonce: 0,
      to: '0xB0b5B0106D69fE64545A60A68C014f7570D3F861',
      value: 1n,
      gas: 21_000n,
      maxPriorityFeePerGas: 400_000_000n,
      maxFeePerGas: 52_925_678_988n,
    });
    expect(t.remaining()).toBe(0);
    expect(await recoverTransactionAddress({ serializedTransaction: signed as TransactionSerialized })).toBe(
      DEVICE_B,
    );
  });

  it('a tx longer than one APDU is split as ledgerjs splits it (150-byte chunks)', async () => {
    const exchanges = recordingNamed("signTransaction 44'/60'/0'/0/0 eip1559 two chunks");
    // The unsigned tx is the recorded payload without the 21-byte path prefix of the first APDU.
    const unsigned = Buffer.concat(
      exchanges.map((e, i) => Buffer.from(e.apdu, 'hex').subarray(i === 0 ? 5 + 21 : 5)),
    );
    const t = replaying(exchanges);
    const sig = await ledgerSignTransaction(t, bip44Path(0), unsigned);
    expect(t.remaining()).toBe(0);
    expect(sig.v).toBe(1);
    const signature = `0x${hex(sig.r)}${hex(sig.s)}${sig.v === 0 ? '1b' : '1c'}` as const;
    expect(await recoverAddress({ hash: keccak256(unsigned), signature })).toBe(DEVICE_B);
  });

  it('signPersonalMessage: exact APDU (path, 4-byte length, message); v‖r‖s parsed', async () => {
    const t = replaying(recordingNamed(`signPersonalMessage 44'/60'/0'/0'/0 "test"`));
    const sig = await ledgerSignPersonalMessage(t, HARDENED_PATH, Buffer.from('test'));
    expect(t.remaining()).toBe(0);
    expect(sig.v).toBe(27);
    expect(hex(sig.r)).toBe('8beafdd56521af1213d6d668a2aed262cc840e7174b642215aec013a1c88b2bd');
    expect(hex(sig.s)).toBe('3a407b9125f1bfc015df6983ae8b87a34d54be367b4275834c3039622a73ee00');
    // No address of this signer was recorded; the EIP-191 recovery is pinned instead.
    const signature = `0x${hex(sig.r)}${hex(sig.s)}1b` as const;
    expect(await recoverMessageAddress({ message: 'test', signature })).toBe(
      '0x4EB83f1742C954aAD5f8D7330eC22f69bd5941c1',
    );
  });

  it('the replayer fails on any APDU that differs from the recording', async () => {
    const t = replaying(recordingNamed("getAddress 44'/60'/0'/0'/0"));
    await expect(ledgerGetAddress(t, bip44Path(0))).rejects.toThrow(/differs/);
  });
});

describe('Ledger signer error paths (synthetic answers)', () => {
  const answering = (response: string) => ({
    exchange: async () => Buffer.from(response, 'hex'),
  });

  it('status words become typed ledger_error with an operator-readable message', async () => {
    await expect(ledgerGetAddress(answering('6985'), bip44Path(0))).rejects.toMatchObject({
      code: 'ledger_error',
      message: 'Ledger: rejected on the device',
    });
    await expect(ledgerGetAddress(answering('6e00'), bip44Path(0))).rejects.toThrow(
      /Ethereum app is not open/,
    );
    await expect(ledgerGetAddress(answering('5515'), bip44Path(0))).rejects.toThrow(/locked/);
  });

  it('a transport failure and a malformed answer are typed', async () => {
    const broken = {
      exchange: async () => {
        throw new Error('USB disconnected');
      },
    };
    await expect(ledgerGetAddress(broken, bip44Path(0))).rejects.toMatchObject({ code: 'ledger_error' });
    await expect(ledgerGetAddress(answering('41049000'), bip44Path(0))).rejects.toMatchObject({
      code: 'ledger_bad_response',
    });
    await expect(
      ledgerSignPersonalMessage(answering('1b00119000'), bip44Path(0), Buffer.from('x')),
    ).rejects.toMatchObject({
      code: 'ledger_bad_response',
    });
  });

  it('legacy (untyped) txs are refused before anything is sent', async () => {
    await expect(
      ledgerSignTransaction(answering('9000'), bip44Path(0), Buffer.from('e801', 'hex')),
    ).rejects.toMatchObject({
      code: 'ledger_unsupported',
    });
  });
});

describe('Ledger EVM flows on the Ethereum-app emulator', () => {
  it('the device path yields the same tx a local key signs (RFC 6979), chunked at 150 bytes', async () => {
    const log: string[] = [];
    const emu = createEthAppEmulator(LEDGER_MNEMONIC);
    const account = await createLedgerEvmAccount(
      {
        exchange: (apdu) => {
          log.push(Buffer.from(apdu).toString('hex'));
          return emu.exchange(apdu);
        },
      },
      1,
    );
    const local = mnemonicToAccount(LEDGER_MNEMONIC, { addressIndex: 1 });
    expect(account.address).toBe(local.address);
    const signed = await account.signTransaction(ledgerFixtureTx());
    expect(signed).toBe(await local.signTransaction(ledgerFixtureTx()));
    const unsignedLength = (serializeTransaction(ledgerFixtureTx()).length - 2) / 2;
    const signApdus = log.filter((a) => a.startsWith('e004'));
    expect(signApdus.length).toBe(Math.ceil((unsignedLength + 21) / 150));
    expect(signApdus.slice(0, -1).every((a) => a.slice(8, 10) === '96')).toBe(true);
  });

  it('vip deploy --ledger signs through the transport on anvil', async () => {
    const anvil = await startAnvil();
    try {
      const outputs: Record<string, unknown>[] = [];
      const program = new Command('rollup-indexer').exitOverride();
      registerVip(program, {
        env: {},
        logger: pino({ level: 'silent' }),
        out: (r) => outputs.push(r),
        openLedger: async () => createEthAppEmulator(LEDGER_MNEMONIC),
      });
      const dir = await mkdtemp(path.join(tmpdir(), 'vip-ledger-'));
      onTestFinished(() => rm(dir, { recursive: true, force: true }));
      const record = path.join(dir, 'r.json');
      await program.parseAsync([
        'node',
        'x',
        'vip',
        'deploy',
        '--vm',
        'evm',
        '--json-rpc',
        anvil.url,
        '--ledger',
        '--init-stage',
        '2',
        '--record',
        record,
        '--poll-ms',
        '20',
      ]);
      const out = outputs[0] as { record: { sender: string; initStage: string } };
      expect(out.record.sender).toBe(mnemonicToAccount(LEDGER_MNEMONIC).address.toLowerCase());
      expect(out.record.initStage).toBe('2');
    } finally {
      await anvil.stop();
    }
  });
});
