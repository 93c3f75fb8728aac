import { tryAccountBytes } from '../../shared/address.js';
import type { AbciEvent } from '../../node/types.js';
import type { BalanceDelta } from './rich-list-deltas.js';

/** A balance change before its denom is known: Move names the asset by its metadata address. */
export interface AssetDelta {
  /** Bank denom (Wasm) or metadata address (Move), as the event has it. */
  asset: string;
  account: string;
  amount: bigint;
}

const attrs = (e: AbciEvent) => new Map(e.attributes.map((a) => [a.key, a.value]));
const COIN_RE = /^(\d+)([a-zA-Z][a-zA-Z0-9/:._-]*)$/;

/** "10uinit,5ibc/AB…" → coins; an item that is not a coin is left out. */
export function parseCoins(text: string): Array<{ denom: string; amount: bigint }> {
  return text.split(',').flatMap((item) => {
    const m = COIN_RE.exec(item.trim());
    return m ? [{ denom: m[2]!, amount: BigInt(m[1]!) }] : [];
  });
}

/**
 * Wasm (and any x/bank chain): `coinbase` credits the minter, `burn` debits the burner, `transfer`
 * moves from sender to recipient (docs/ingest.md §8.3). Accounts that do not normalise are left
 * out; module accounts are not (the rich-list stage leaves those out).
 */
export function bankDeltas(events: readonly AbciEvent[], prefix: string): AssetDelta[] {
  const out: AssetDelta[] = [];
  const push = (address: string | undefined, coins: string | undefined, sign: 1n | -1n) => {
    const bytes = address ? tryAccountBytes(address, prefix) : undefined;
    if (!bytes || !coins) return;
    const account = Buffer.from(bytes).toString('hex');
    for (const c of parseCoins(coins)) out.push({ asset: c.denom, account, amount: sign * c.amount });
  };
  for (const e of events) {
    const a = attrs(e);
    if (e.type === 'coinbase') push(a.get('minter'), a.get('amount'), 1n);
    else if (e.type === 'burn') push(a.get('burner'), a.get('amount'), -1n);
    else if (e.type === 'transfer') {
      push(a.get('sender'), a.get('amount'), -1n);
      push(a.get('recipient'), a.get('amount'), 1n);
    }
  }
  return out;
}

const FA = '0x1::fungible_asset::';

/**
 * Move: a fungible-asset WithdrawEvent / DepositEvent followed by its owner event debits / credits
 * the owner (docs/ingest.md §8.3); the asset is the metadata address.
 */
export function fungibleAssetDeltas(events: readonly AbciEvent[], prefix: string): AssetDelta[] {
  const out: AssetDelta[] = [];
  events.forEach((e, i) => {
    const next = events[i + 1];
    if (e.type !== 'move' || !next) return;
    const [tag, data] = [e.attributes[0], e.attributes[1]];
    const [nextTag, nextData] = [next.attributes[0], next.attributes[1]];
    if (tag?.key !== 'type_tag' || nextTag?.key !== 'type_tag' || !data || !nextData) return;
    const sign =
      tag.value === `${FA}WithdrawEvent` ? -1n : tag.value === `${FA}DepositEvent` ? 1n : undefined;
    const ownerTag = sign === -1n ? `${FA}WithdrawOwnerEvent` : `${FA}DepositOwnerEvent`;
    if (sign === undefined || nextTag.value !== ownerTag) return;
    const moved = parseJson<{ metadata_addr?: unknown; amount?: unknown }>(data.value);
    const owner = parseJson<{ owner?: unknown }>(nextData.value)?.owner;
    const bytes = typeof owner === 'string' ? tryAccountBytes(owner, prefix) : undefined;
    const amount =
      typeof moved?.amount === 'string' && /^\d+$/.test(moved.amount) ? BigInt(moved.amount) : undefined;
    if (!bytes || amount === undefined || typeof moved?.metadata_addr !== 'string') return;
    const account = Buffer.from(bytes).toString('hex');
    out.push({ asset: moved.metadata_addr, account, amount: sign * amount });
  });
  return out;
}

function parseJson<T>(text: string): T | undefined {
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}

/** Deltas under their stored denom (lower-cased), given how to name each asset. */
export function withDenoms(
  deltas: readonly AssetDelta[],
  denomOf: (asset: string) => string,
): BalanceDelta[] {
  return deltas.map((d) => ({ denom: denomOf(d.asset), account: d.account, amount: d.amount }));
}
