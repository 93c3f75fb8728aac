import { beforeEach, describe, expect, it } from 'vitest';
import { accountBytesFromString, toBech32 } from '../../shared/address.js';
import { mapBounded } from '../../shared/map-bounded.js';
import type { BankState } from '../../node/bank-state.js';
import type { EvmClient } from '../../node/evm.js';
import type { RawBlock } from '../../node/types.js';
import { createBankBalanceSource, createEvmBalanceSource } from './rich-list-sources.js';

const TOKEN = '0x' + 'ab'.repeat(20);
const TRANSFER = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const word = (hex: string) => '0x' + hex.padStart(64, '0');

const blockWithTransfer = (height: number): RawBlock => ({
  height,
  chainId: 'evm-1',
  hash: '00',
  time: '2026-01-01T00:00:00Z',
  proposerAddress: '00',
  txs: [],
  txResults: [],
  finalizeBlockEvents: [
    {
      type: 'evm',
      attributes: [
        {
          key: 'log',
          value: JSON.stringify({
            address: TOKEN,
            topics: [TRANSFER, word('11'.repeat(20)), word('22'.repeat(20))],
            data: word('64'),
          }),
          index: false,
        },
      ],
    },
  ],
});

describe('EVM balance source', () => {
  it('asks the node once for the bank denom of a token first seen in the logs, and keeps it as an alias', async () => {
    const asked: string[] = [];
    const bank = {
      denomOfContract: async (contract: string) => {
        asked.push(contract);
        return 'ibc/ABC123';
      },
    } as unknown as BankState;
    const source = createEvmBalanceSource({ evm: {} as EvmClient, bank, prefix: 'init' });
    const deltas = await Promise.all([
      source.deltas(source.extract(blockWithTransfer(5))),
      source.deltas(source.extract(blockWithTransfer(6))),
    ]);
    expect(deltas.flat().map((d) => d.amount)).toEqual([-100n, 100n, -100n, 100n]);
    expect(asked).toEqual([TOKEN]);
    expect(source.aliases()).toEqual([{ alias: 'ibc/abc123', denom: TOKEN }]);
  });

  it("gives a token's totalSupply() at a height; undefined where it reverts or answers no word", async () => {
    const asked: string[] = [];
    const evm = {
      erc20SuppliesAt: async (tokens: readonly string[], height: number) => {
        asked.push(...tokens.map((t) => `${t.slice(0, 4)}@${height}`));
        return tokens.map(() => (height === 7 ? 12n : undefined));
      },
    } as unknown as EvmClient;
    const source = createEvmBalanceSource({ evm, bank: {} as BankState, prefix: 'init' });
    expect(await source.supplyAt!(TOKEN, 7)).toBe(12n);
    expect(await source.supplyAt!(TOKEN, 8)).toBeUndefined();
    expect(asked).toEqual(['0xab@7', '0xab@8']);
  });
});

describe('bank balance source (Move, Wasm)', () => {
  const OPCHILD = 'init1gz9n8jnu9fgqw7vem9ud67gqjk5q4m2w0aejne';
  const FEES = 'init17xpfvakm2amg962yls6f84z3kell8c5l70rnql';
  const users = Array.from({ length: 40 }, (_, i) => toBech32(Buffer.alloc(20, i + 1), 'init'));
  /** What the stub node answers for the bank supply (undefined: not served). */
  let supply: Array<{ denom: string; amount: bigint }> | undefined;
  beforeEach(() => {
    supply = undefined;
  });
  const bankWith = () => {
    let active = 0;
    const seen = { peak: 0, moduleReads: 0, balanceReads: [] as string[] };
    const bank = {
      accountsAt: async () => [...users, OPCHILD, FEES],
      moduleAccounts: async () => {
        seen.moduleReads++;
        return [
          { address: OPCHILD, name: 'opchild', permissions: ['minter', 'burner'] },
          { address: FEES, name: 'fee_collector', permissions: [] },
        ];
      },
      balancesAt: async (address: string) => {
        seen.balanceReads.push(address);
        active++;
        seen.peak = Math.max(seen.peak, active);
        await new Promise((resolve) => setImmediate(resolve));
        active--;
        return [{ denom: 'uINIT', amount: 5n }];
      },
      // As createBankState does without an RPC client: REST reads, a few at a time.
      balancesOfEach: (addresses: readonly string[], height: number) =>
        mapBounded(addresses, 16, (a) => bank.balancesAt(a, height)),
    } as unknown as BankState;
    return { bank, seen };
  };

  it.each(['move', 'wasm'] as const)(
    '%s: the supply of a denom the bank lists (any case), read once per height; undefined for one it does not list or without a supply',
    async (vm) => {
      let reads = 0;
      const bank = {
        supplyAt: async () => {
          reads++;
          return supply;
        },
      } as unknown as BankState;
      const source = createBankBalanceSource({ vm, bank, prefix: 'init' });
      supply = [
        { denom: 'uINIT', amount: 210n },
        { denom: 'uother', amount: 1n },
      ];
      expect(await source.supplyAt!('uinit', 10)).toBe(210n);
      expect(await source.supplyAt!('uother', 10)).toBe(1n);
      // Another spelling of a listed denom would look like a zero supply: it is no answer.
      expect(await source.supplyAt!('unew', 10)).toBeUndefined();
      expect(reads).toBe(1);
      supply = undefined;
      expect(await source.supplyAt!('uinit', 11)).toBeUndefined();
      expect(reads).toBe(2);
    },
  );

  it.each(['move', 'wasm'] as const)(
    '%s: the snapshot reads balances a few at a time; the minter/burner module accounts are read once and again when asked',
    async (vm) => {
      const { bank, seen } = bankWith();
      const source = createBankBalanceSource({ vm, bank, prefix: 'init' });
      const { rows } = await source.snapshot(10);
      const holders = rows.map((r) => toBech32(r.account, 'init'));
      // The stage leaves the module accounts out.
      expect(holders).toEqual([...users, OPCHILD, FEES]);
      expect(rows.every((r) => r.denom === 'uinit' && r.amount === 5n)).toBe(true);
      expect(seen.peak).toBeGreaterThan(1);
      expect(seen.peak).toBeLessThanOrEqual(16);
      expect(seen.moduleReads).toBe(0);
      expect([...(await source.excluded(false))]).toEqual([accountHex(OPCHILD)]);
      await source.excluded(false);
      expect(seen.moduleReads).toBe(1);
      expect([...(await source.excluded(true))]).toEqual([accountHex(OPCHILD)]);
      expect(seen.moduleReads).toBe(2);
    },
  );

  it('wasm: bank events of a module account are listed (the stage leaves them out)', async () => {
    const { bank } = bankWith();
    const source = createBankBalanceSource({ vm: 'wasm', bank, prefix: 'init' });
    const block: RawBlock = {
      ...blockWithTransfer(3),
      finalizeBlockEvents: [
        {
          type: 'coinbase',
          attributes: [
            { key: 'minter', value: OPCHILD, index: false },
            { key: 'amount', value: '7uinit', index: false },
          ],
        },
        {
          type: 'transfer',
          attributes: [
            { key: 'recipient', value: users[0]!, index: false },
            { key: 'sender', value: OPCHILD, index: false },
            { key: 'amount', value: '7uinit', index: false },
          ],
        },
      ],
    };
    // Summed per account within the block: the module account's mint and spend net to zero, and
    // stay listed (touched).
    expect(await source.deltas(source.extract(block))).toEqual([
      { denom: 'uinit', account: accountHex(OPCHILD), amount: 0n },
      { denom: 'uinit', account: accountHex(users[0]!), amount: 7n },
    ]);
  });
});

const accountHex = (address: string) => Buffer.from(accountBytesFromString(address, 'init')).toString('hex');

describe('bank balance source (Move denoms)', () => {
  const moveDeposit = (metadata: string, owner: string): RawBlock => ({
    ...blockWithTransfer(4),
    finalizeBlockEvents: [
      {
        type: 'move',
        attributes: [
          { key: 'type_tag', value: '0x1::fungible_asset::DepositEvent', index: false },
          {
            key: 'data',
            value: JSON.stringify({ store_addr: '0x1', metadata_addr: metadata, amount: '3' }),
            index: false,
          },
        ],
      },
      {
        type: 'move',
        attributes: [
          { key: 'type_tag', value: '0x1::fungible_asset::DepositOwnerEvent', index: false },
          { key: 'data', value: JSON.stringify({ owner }), index: false },
        ],
      },
    ],
  });

  it("keeps lower(symbol) as an alias of an asset with 0 decimals (the reference's stored form), unless it is the denom", async () => {
    const COIN = '0x' + 'c1'.repeat(32);
    const UINIT = '0x8e4733bdabcf7d4afc3d14f0dd46c9bf52fb0fce9e4b996c939e195b8bc891d9';
    const owner = '0x' + 'aa'.repeat(20);
    const bank = {
      denomOfMetadata: async (metadata: string) =>
        metadata === UINIT ? 'uinit' : `move/${metadata.slice(2)}`,
      fungibleAssetMetadata: async (metadata: string) =>
        metadata === UINIT ? { symbol: 'uinit', decimals: 0 } : { symbol: 'MyCoin', decimals: 0 },
    } as unknown as BankState;
    const source = createBankBalanceSource({ vm: 'move', bank, prefix: 'init' });
    expect(await source.deltas(source.extract(moveDeposit(COIN, owner)))).toEqual([
      { denom: `move/${COIN.slice(2)}`, account: 'aa'.repeat(20), amount: 3n },
    ]);
    expect(await source.deltas(source.extract(moveDeposit(UINIT, owner)))).toEqual([
      { denom: 'uinit', account: 'aa'.repeat(20), amount: 3n },
    ]);
    expect(source.aliases()).toEqual([
      { alias: 'mycoin', denom: `move/${COIN.slice(2)}`, bySymbol: true },
      { alias: `move/${UINIT.slice(2)}`, denom: 'uinit' },
    ]);
  });

  it('asks the node once per asset when the blocks of a batch are read at once', async () => {
    const COIN = '0x' + 'c2'.repeat(32);
    const asked: string[] = [];
    const bank = {
      denomOfMetadata: async (metadata: string) => {
        asked.push(metadata);
        await new Promise((resolve) => setImmediate(resolve));
        return 'ucoin';
      },
      fungibleAssetMetadata: async () => ({ symbol: 'COIN', decimals: 0 }),
    } as unknown as BankState;
    const source = createBankBalanceSource({ vm: 'move', bank, prefix: 'init' });
    const owner = '0x' + 'aa'.repeat(20);
    await Promise.all([
      source.deltas(source.extract(moveDeposit(COIN, owner))),
      source.deltas(source.extract(moveDeposit(COIN, owner))),
    ]);
    expect(asked).toEqual([COIN]);
    expect(source.aliases()).toEqual([
      { alias: `move/${COIN.slice(2)}`, denom: 'ucoin' },
      { alias: 'coin', denom: 'ucoin', bySymbol: true },
    ]);
  });

  it('keeps no symbol alias for an asset with decimals', async () => {
    const COIN = '0x' + 'd1'.repeat(32);
    const bank = {
      denomOfMetadata: async () => 'uusdc',
      fungibleAssetMetadata: async () => ({ symbol: 'USDC', decimals: 6 }),
    } as unknown as BankState;
    const source = createBankBalanceSource({ vm: 'move', bank, prefix: 'init' });
    await source.deltas(source.extract(moveDeposit(COIN, '0x' + 'aa'.repeat(20))));
    expect(source.aliases().map((a) => a.alias)).toEqual([`move/${COIN.slice(2)}`]);
  });
});
