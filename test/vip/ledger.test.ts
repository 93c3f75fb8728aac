import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { Command } from 'commander';
import { pino } from 'pino';
import { mnemonicToAccount } from 'viem/accounts';
import { recoverTransactionAddress, type TransactionSerialized } from 'viem';
import { registerVip } from '../../src/bin/commands/vip.js';
import { createLedgerEvmAccount } from '../../src/vip/ledger.js';
import { startAnvil } from './anvil.js';
import { createEthAppEmulator, replaying } from './ledger-emulator.js';
import { LEDGER_MNEMONIC, ledgerFixtureTx } from './ledger-fixture.js';

interface Recording {
  index: number;
  exchanges: { apdu: string; response: string }[];
}

describe('Ledger signer (Ethereum app APDUs, recorded transport, no device)', () => {
  it('replays the recorded exchange exactly and yields the same tx a local key would sign', async () => {
    const rec = JSON.parse(
      await readFile(path.resolve('test', 'vip', 'fixtures', 'ledger-eth-recording.json'), 'utf8'),
    ) as Recording;
    const transport = replaying(rec.exchanges);
    const account = await createLedgerEvmAccount(transport, rec.index);
    const local = mnemonicToAccount(LEDGER_MNEMONIC, { addressIndex: rec.index });
    expect(account.address).toBe(local.address);
    const signed = await account.signTransaction(ledgerFixtureTx());
    expect(transport.remaining()).toBe(0);
    // RFC 6979 signatures are deterministic: the device path must produce identical bytes.
    expect(signed).toBe(await local.signTransaction(ledgerFixtureTx()));
    expect(await recoverTransactionAddress({ serializedTransaction: signed as TransactionSerialized })).toBe(
      local.address,
    );
  });

  it('a device refusal (0x6985) surfaces as a clear error', async () => {
    const rec = JSON.parse(
      await readFile(path.resolve('test', 'vip', 'fixtures', 'ledger-eth-recording.json'), 'utf8'),
    ) as Recording;
    const refused = rec.exchanges.map((e, i) =>
      i === rec.exchanges.length - 1 ? { ...e, response: '6985' } : e,
    );
    const account = await createLedgerEvmAccount(replaying(refused), rec.index);
    await expect(account.signTransaction(ledgerFixtureTx())).rejects.toThrow(/rejected on the device/);
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
