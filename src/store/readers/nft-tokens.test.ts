import { describe, expect, it } from 'vitest';
import { testDbFactories } from '../../../test/helpers/db.js';
import { accountTextMemo } from '../../api/account-text.js';
import { tokenCursor } from '../../api/nft-render.js';
import { rfc3339FromMicros } from '../../wire/nft-collection.js';
import { renderToken } from '../../wire/nft-token.js';
import type { Db } from '../driver/db.js';
import { createNftTokenReader } from './nft-tokens.js';

const OWNER = Buffer.alloc(20, 7);
const COLLECTION = Buffer.alloc(32, 0xab);
/** A token whose collection row is missing (the reference would answer 500). */
const ORPHAN_COLLECTION = Buffer.alloc(20, 0xcd);
/** Text that JSON must escape, and text it must not. */
const AWKWARD = 'q"b\\s/n\nt\tc\u0001d\u007f é 😀 </script>';

interface Token {
  collection: Buffer;
  tokenId: string;
  objectAddr: Buffer | null;
  uri: string;
  height: number;
  /** Stored `YYYY-MM-DDTHH:MI:SS.US` UTC, as rfc3339FromMicros takes it. */
  ts: string;
}

const tokens: Token[] = [
  {
    collection: COLLECTION,
    tokenId: 'a',
    objectAddr: Buffer.alloc(32, 1),
    uri: AWKWARD,
    height: 5,
    ts: '2026-01-01T00:00:01.000000',
  },
  {
    collection: COLLECTION,
    tokenId: AWKWARD,
    objectAddr: null,
    uri: '',
    height: 6,
    ts: '2026-01-01T00:00:02.120000',
  },
  {
    collection: COLLECTION,
    tokenId: 'c',
    objectAddr: null,
    uri: 'ipfs://x',
    height: 7,
    ts: '2026-01-01T00:00:03.000001',
  },
  {
    collection: ORPHAN_COLLECTION,
    tokenId: 'd',
    objectAddr: null,
    uri: 'u',
    height: 8,
    ts: '1999-12-31T23:59:59.500000',
  },
];

/** Returns the owner's account_dict id. */
async function seed(db: Db): Promise<number> {
  const insertId = async (sql: string, params: unknown[]) =>
    (await db.query<{ id: number }>(`${sql} RETURNING id`, params)).rows[0]!.id;
  const ownerId = await insertId('INSERT INTO account_dict (account) VALUES ($1)', [OWNER]);
  await db.query(
    `INSERT INTO nft_collection (addr, height, "timestamp", name, origin_name, creator_id, nft_count, name_key)
     VALUES ($1, 1, '2026-01-01', $2, $3, $4, 3, 'k')`,
    [COLLECTION, AWKWARD, `origin ${AWKWARD}`, ownerId],
  );
  for (const t of tokens) {
    const nftId = await insertId('INSERT INTO nft_dict (collection_addr, token_id) VALUES ($1, $2)', [
      t.collection,
      t.tokenId,
    ]);
    await db.query(
      `INSERT INTO nft (nft_id, collection_addr, token_id, object_addr, owner_id, uri, height, "timestamp")
       VALUES ($1, $2, $3, $4, $5, $6, $7, ($8 || '+00')::timestamptz)`,
      [nftId, t.collection, t.tokenId, t.objectAddr, ownerId, t.uri, t.height, t.ts],
    );
  }
  return ownerId;
}

/** The API object of docs/api.md §5.7 built from plain values, as the JS renderer used to. */
function expectedJson(t: Token, collectionName: string, originName: string, owner: string): string {
  return JSON.stringify({
    collection_addr: `0x${t.collection.toString('hex')}`,
    collection_name: collectionName,
    collection_origin_name: originName,
    object_addr: t.objectAddr ? `0x${t.objectAddr.toString('hex')}` : '',
    owner,
    nft: { token_id: t.tokenId, uri: t.uri },
    height: t.height,
    timestamp: rfc3339FromMicros(t.ts),
  });
}

describe.each(testDbFactories())('token JSON rendered by the database ($name)', (factory) => {
  it('is, byte for byte, what JSON.stringify and rfc3339FromMicros give, and follows updates', async () => {
    const { db, dispose } = await factory.create();
    try {
      const ownerId = await seed(db);
      const reader = createNftTokenReader({ db, countTimeoutMs: 1_000 });
      const plan = { orderBy: 'height' as const, desc: false, limit: 10, offset: 0 };
      const account = accountTextMemo('init');
      const owner = account(OWNER);
      const read = async () => (await reader.list(plan, { ownerId }, true)).rows;

      const rows = await read();
      expect(rows.map((r) => renderToken(r, account))).toEqual([
        ...tokens.slice(0, 3).map((t) => expectedJson(t, AWKWARD, `origin ${AWKWARD}`, owner)),
        expectedJson(tokens[3]!, '', '', owner),
      ]);
      expect(tokenCursor(rows[1]!, true)).toEqual({
        collection_addr: `0x${COLLECTION.toString('hex')}`,
        height: 6,
        token_id: AWKWARD,
      });
      expect(tokenCursor(rows[1]!, false)).toEqual({ height: 6, token_id: AWKWARD });

      // A URI change and a collection's origin name reach the stored text.
      await db.query("UPDATE nft SET uri = 'new\"uri' WHERE token_id = 'a'");
      await db.query("UPDATE nft_collection SET origin_name = 'o2' WHERE addr = $1", [COLLECTION]);
      const [first] = await read();
      expect(renderToken(first!, account)).toBe(
        expectedJson({ ...tokens[0]!, uri: 'new"uri' }, AWKWARD, 'o2', owner),
      );
    } finally {
      await dispose();
    }
  });
});
