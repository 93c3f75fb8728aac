import type { Queryable } from '../driver/db.js';
import type { NftChange } from './nft-rows.js';

/**
 * Who received which token in which tx (migrations/20261126_0011_nft_receipts.sql), folded from a
 * batch's NFT changes in chain order: a mint's recipient is the owner at the end of its tx; other
 * transfers are receipts of each new owner.
 */
export interface NftReceiptLog {
  /**
   * A change just applied to the folded state (`token.after`: the token after it). Mints and
   * transfers count only when they placed the token with that owner (a transfer of a burned token
   * does not); a transfer to the holder itself is no receipt.
   */
  record(
    at: ReceiptAt,
    nftId: number,
    change: NftChange,
    token: { ownerBefore: number | undefined; after: { live: boolean; ownerId: number } | undefined },
    accountId: (bytes: Uint8Array) => number,
  ): void;
  insert(tx: Queryable): Promise<void>;
}

export interface ReceiptAt {
  height: number;
  /** tx.sequence, or null for a block-level event. */
  sequence: number | null;
}

interface Entry {
  at: ReceiptAt;
  nftId: number;
  minted: boolean;
  owners: number[];
}

export function createNftReceiptLog(): NftReceiptLog {
  const entries = new Map<string, Entry>();
  const key = (at: ReceiptAt, nftId: number) => `${at.height}:${at.sequence ?? 'b'}:${nftId}`;
  return {
    record(at, nftId, change, token, accountId) {
      if (change.kind !== 'mint' && change.kind !== 'transfer') return;
      const ownerId = accountId(change.owner);
      if (!token.after?.live || token.after.ownerId !== ownerId) return;
      if (change.kind === 'transfer' && token.ownerBefore === ownerId) return;
      const entry = entries.get(key(at, nftId));
      if (change.kind === 'mint') entries.set(key(at, nftId), { at, nftId, minted: true, owners: [ownerId] });
      else if (entry?.minted) entry.owners = [ownerId];
      else if (entry) entry.owners.push(ownerId);
      else entries.set(key(at, nftId), { at, nftId, minted: false, owners: [ownerId] });
    },
    async insert(tx) {
      const rows: [number, number | null, number, number, boolean][] = [];
      for (const e of entries.values()) {
        for (const owner of new Set(e.owners))
          rows.push([e.at.height, e.at.sequence, e.nftId, owner, e.minted]);
      }
      if (rows.length === 0) return;
      await tx.query(
        `INSERT INTO nft_receipt (height, sequence, nft_id, to_id, minted)
         SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::bigint[], $5::bool[])`,
        [
          rows.map((r) => r[0]),
          rows.map((r) => r[1]),
          rows.map((r) => r[2]),
          rows.map((r) => r[3]),
          rows.map((r) => r[4]),
        ],
      );
    },
  };
}
