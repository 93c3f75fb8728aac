import { keccak_256 } from '@noble/hashes/sha3.js';
import { getAddress } from 'viem';

/** Small ABI/hex helpers for the EVM model (addresses are 0x + 40 lower-case hex unless noted). */
export const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
export const OWNERSHIP_TOPIC = '0x8be0079c531659141344cd1fd0a4f28419497f9722a3daafe3b4186f6b6457e0';
export const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';
export const ZERO_TOPIC = '0x' + '0'.repeat(64);

export const SELECTOR = {
  transfer: '0xa9059cbb',
  transferFrom: '0x23b872dd',
  safeTransferFrom: '0x42842e0e',
  balanceOf: '0x70a08231',
  name: '0x06fdde03',
  symbol: '0x95d89b41',
  decimals: '0x313ce567',
  totalSupply: '0x18160ddd',
  tokenURI: '0xc87b56dd',
  ownerOf: '0x6352211e',
  mint: '0x40c10f19',
  burn: '0x42966c68',
  createCollection: '0x2d1a2a5c',
  forward: '0x6fadcf72',
  onERC721Received: '0x150b7a02',
} as const;

/** ERC721NonexistentToken(uint256) — OpenZeppelin 5's custom error. */
export const NONEXISTENT_TOKEN = '0x7e273289';

export const word = (value: bigint | number): string => BigInt(value).toString(16).padStart(64, '0');
export const addressWord = (address: string): string => address.slice(2).toLowerCase().padStart(64, '0');
export const addressTopic = (address: string): string => '0x' + addressWord(address);
export const uintTopic = (value: bigint | number): string => '0x' + word(value);
export const checksum = (address: string): string => getAddress(address);
export const hexQuantity = (value: bigint | number): string => '0x' + BigInt(value).toString(16);

/** ABI encoding of a single dynamic `string` return value. */
export function abiString(text: string): string {
  const bytes = Buffer.from(text, 'utf8');
  const padded = bytes.toString('hex').padEnd(Math.ceil(bytes.length / 32) * 64, '0');
  return '0x' + word(32) + word(bytes.length) + padded;
}

export function keccakHex(data: Uint8Array | string): string {
  const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data;
  return '0x' + Buffer.from(keccak_256(bytes)).toString('hex');
}

/** minievm: uint64be(keccak256(chainId)[0:8]) mod 4503599627370476. */
export function evmChainId(chainId: string): bigint {
  const digest = keccak_256(new TextEncoder().encode(chainId));
  const high = Buffer.from(digest.subarray(0, 8)).readBigUInt64BE(0);
  return high % 4503599627370476n;
}

export interface EvmLog {
  /** EIP-55 address (as minievm writes it in events). */
  address: string;
  topics: string[];
  data: string;
}

/** The Go JSON of a log inside an `evm` event attribute (omitempty topics). */
export function logJson(log: EvmLog): string {
  const topics = log.topics.length > 0 ? `,"topics":${JSON.stringify(log.topics)}` : '';
  return `{"address":"${log.address}"${topics},"data":"${log.data}"}`;
}

export function transferLog(
  token: string,
  from: string,
  to: string,
  amountOrId: bigint,
  nft: boolean,
): EvmLog {
  return nft
    ? {
        address: checksum(token),
        topics: [TRANSFER_TOPIC, addressTopic(from), addressTopic(to), uintTopic(amountOrId)],
        data: '0x',
      }
    : {
        address: checksum(token),
        topics: [TRANSFER_TOPIC, addressTopic(from), addressTopic(to)],
        data: '0x' + word(amountOrId),
      };
}
