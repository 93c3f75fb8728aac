import { accountBytesFromString } from '../../../shared/address.js';

/** "0x" + lower-case hex of an account's bytes (32-byte contracts and objects keep 64 digits). */
export function accountHex(address: string, prefix: string): string {
  return '0x' + Buffer.from(accountBytesFromString(address, prefix)).toString('hex');
}
