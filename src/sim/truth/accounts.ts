import { tryNormaliseAccount } from '../../shared/address.js';
import type { SimEvent } from '../chain/events.js';

/**
 * The accounts an indexer must extract from a tx's events (docs/ingest.md §6.2), written
 * independently of ingest's extractor so that the ground truth checks it rather than echoes it.
 * The FA store-owner look-up is not applied: owners appear through the owner events' data.
 */
const MOVE_HEX = /0x[a-fA-F0-9]{1,64}/g;
const BECH32_PIECE = /^init1(?:[a-z0-9]{38}|[a-z0-9]{58})$/;
const HEX_PIECE = /^0x[a-fA-F0-9]{1,64}$/;
const PADDED_TOPIC = '0x000000000000000000000000';

export type Normaliser = (candidate: string) => string | undefined;

/** docs/ingest.md §6.1 normalisation with a memo: the same stores, metadata and users recur constantly. */
export function createNormaliser(prefix: string): Normaliser {
  const memo = new Map<string, string | null>();
  return (candidate) => {
    let account = memo.get(candidate);
    if (account === undefined) {
      account = tryNormaliseAccount(candidate, prefix) ?? null;
      if (memo.size > 200_000) memo.clear();
      memo.set(candidate, account);
    }
    return account ?? undefined;
  };
}

export function grepAccounts(events: SimEvent[], signer: string, normalise: Normaliser): string[] {
  const found = new Set<string>();
  const add = (candidate: string): void => {
    const account = normalise(candidate);
    if (account !== undefined) found.add(account);
  };
  for (const e of events) {
    for (const a of e.attributes) {
      if (e.type === 'move' && a.key === 'data') {
        for (const m of a.value.matchAll(MOVE_HEX)) add(m[0]);
      } else if (e.type === 'evm' && a.key === 'log') {
        const log = JSON.parse(a.value) as { address?: string; topics?: string[] };
        if (log.address !== undefined) add(log.address);
        (log.topics ?? []).forEach((t, k) => {
          if (k >= 1 && t.startsWith(PADDED_TOPIC)) add(t);
        });
      } else if (e.type === 'call' && a.key === 'ret') {
        continue;
      } else {
        for (const piece of a.value.split(',')) {
          if (BECH32_PIECE.test(piece) || HEX_PIECE.test(piece)) add(piece);
        }
      }
    }
  }
  add(signer);
  return [...found].sort();
}
