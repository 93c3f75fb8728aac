import { Type } from '@sinclair/typebox';
import { listEnvelope } from './pagination.js';

/** The rich-list holder document (docs/api.md, richlist.TokenHolder): rendered on each read. */

/** Version of the rendering (not stored: a change here needs no re-render of stored rows). */
export const HOLDER_FORMAT_VERSION = 1;

export const HOLDER_KEY_ORDER = ['account', 'amount'] as const;

export const TokenHolder = Type.Object(
  {
    account: Type.String({ description: 'EVM: 0x + 40 lower-case hex; Move and Wasm: bech32' }),
    amount: Type.String({ description: "integer, in the denom's base unit" }),
  },
  { $id: 'richlist.TokenHolder' },
);
export const TokenHoldersResponse = listEnvelope(
  'richlist.TokenHoldersResponse',
  'holders',
  'richlist.TokenHolder',
);

/** `account` is hex or bech32 text and `amount` decimal digits: neither needs JSON escaping. */
export function renderHolder(account: string, amount: string): string {
  return `{"account":"${account}","amount":"${amount}"}`;
}
