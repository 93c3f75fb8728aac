import { encodeFunctionData, type TransactionSerializable } from 'viem';
import { VIP_SCORE_ABI } from '../../src/vip/evm/abi.js';

export const LEDGER_MNEMONIC = 'test test test test test test test test test test test junk';

/** A fixed updateScores tx, long enough (10 entries) to need several 255-byte APDU chunks. */
export function ledgerFixtureTx(): TransactionSerializable {
  const addrs = Array.from({ length: 10 }, (_, i) => `0x${(i + 1).toString(16).padStart(40, 'c')}` as const);
  return {
    type: 'eip1559',
    chainId: 1982194020580198,
    nonce: 7,
    gas: 900_000n,
    maxFeePerGas: 2_000_000_000n,
    maxPriorityFeePerGas: 1_000_000_000n,
    to: '0x5fbdb2315678afecb367f032d93f642f64180aa3',
    data: encodeFunctionData({
      abi: VIP_SCORE_ABI,
      functionName: 'updateScores',
      args: [3n, addrs, addrs.map((_, i) => BigInt(i + 1))],
    }),
  };
}
