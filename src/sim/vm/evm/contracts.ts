import { sha256 } from '../../chain/keys.js';
import { checksum } from './abi.js';
import { ibcClassName } from '../common/ibc.js';
import { IBC } from '../../chain/nft-lifecycle.js';

/** Contract addresses of the simulated minievm chain (0x + 40 lower-case hex). */
export interface EvmContracts {
  /** ERC20 behind the fee denom `evm/<EIP-55 address without 0x>`. */
  feeToken: string;
  feeDenom: string;
  /** ERC20 of a cosmos denom (minievm backs every denom with an ERC20), or undefined. */
  tokenOf(denom: string): string | undefined;
  denomOf(token: string): string | undefined;
  collection(c: number): string;
  factory: string;
  router: string;
  escrow: string;
  ibcCollection: string;
  ibcName: string;
}

function derive(seed: number, label: string): string {
  return '0x' + sha256(`rollup-sim/evm/${seed}/${label}`).subarray(0, 20).toString('hex');
}

export function createEvmContracts(seed: number, otherDenoms: string[]): EvmContracts {
  const feeToken = derive(seed, 'erc20/gas');
  const feeDenom = 'evm/' + checksum(feeToken).slice(2);
  const byDenom = new Map<string, string>([[feeDenom, feeToken]]);
  for (const d of otherDenoms) byDenom.set(d, derive(seed, `erc20/${d}`));
  const byToken = new Map([...byDenom.entries()].map(([d, t]) => [t, d]));
  const collections = [0, 1, 2].map((c) => derive(seed, `erc721/${c}`));
  return {
    feeToken,
    feeDenom,
    tokenOf: (denom) => byDenom.get(denom),
    denomOf: (token) => byToken.get(token.toLowerCase()),
    collection: (c) => collections[c] ?? derive(seed, `erc721/${c}`),
    factory: derive(seed, 'factory'),
    router: derive(seed, 'router'),
    escrow: derive(seed, 'market'),
    ibcCollection: derive(seed, 'erc721/ibc'),
    ibcName: ibcClassName(IBC.classIdOnL1),
  };
}
