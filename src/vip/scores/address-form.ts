import { accountBytesFromString, toBech32 } from '../../shared/address.js';
import { AppError } from '../../shared/errors.js';

export type ScoresVm = 'evm' | 'move' | 'wasm';

/**
 * The address form `vip update-scores` sends for each VM (src/vip/README.md): EVM 0x + 40
 * lower-case hex, Move 0x + 64 hex, Wasm lower-case bech32 (the contract compares raw strings).
 */
export function scoreAddress(vm: ScoresVm, bytes: Uint8Array, prefix: string): string {
  const hex = Buffer.from(bytes).toString('hex');
  if (vm === 'wasm') return toBech32(bytes, prefix);
  if (vm === 'move') return `0x${hex.padStart(64, '0')}`;
  if (bytes.length !== 20) {
    throw new AppError('invalid_address', `account 0x${hex} is not a 20-byte EVM address`);
  }
  return `0x${hex}`;
}

/** Account bytes (hex) of any address form, the key exclusions are matched on. */
export function accountKey(text: string, prefix: string): string {
  return Buffer.from(accountBytesFromString(text.trim(), prefix)).toString('hex');
}
