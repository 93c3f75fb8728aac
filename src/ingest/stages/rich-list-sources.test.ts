import { describe, expect, it } from 'vitest';
import type { BankState } from '../../node/bank-state.js';
import type { EvmClient } from '../../node/evm.js';
import type { RawBlock } from '../../node/types.js';
import { createEvmBalanceSource } from './rich-list-sources.js';

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
      source.deltas(blockWithTransfer(5)),
      source.deltas(blockWithTransfer(6)),
    ]);
    expect(deltas.flat().map((d) => d.amount)).toEqual([-100n, 100n, -100n, 100n]);
    expect(asked).toEqual([TOKEN]);
    expect(source.aliases()).toEqual([{ alias: 'ibc/abc123', denom: TOKEN }]);
  });
});
