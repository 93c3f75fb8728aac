import { createHash } from 'node:crypto';
import { accountBytesFromString, toBech32 } from '../../src/shared/address.js';
import { nftNameKey } from '../../src/shared/nft-name.js';
import type { Db } from '../../src/store/driver/db.js';
import { seedAccountTypeSets, type SeedChain } from './seed.js';

/**
 * NFT rows for the seeded API suite, written straight into the NFT schema
 * (migrations/20261124_0003_nft.sql) the way ingest documents them, with the JSON the API must
 * answer for each (docs/api.md §5.6–5.7, field order included). Built to hit the edge cases:
 * collections sharing a height, token ids that sort differently as text and as numbers, equal
 * (token_id, height) in different collections, a collection row missing under live tokens, a
 * creator with no dictionary row, an origin name, Unicode names, a burned and a re-minted token.
 */
export interface NftCollectionTruth {
  addrHex: string;
  height: number;
  name: string;
  originName: string;
  json: Record<string, unknown>;
}

export interface NftTokenTruth {
  collectionHex: string;
  tokenId: string;
  height: number;
  owner: string;
  nftId: number;
  /**
   * Sequences of its history, ascending: Move, the txs whose accounts include its object
   * (tx_accounts); Wasm/EVM, its NFT-event edges (tx_nfts). On Move its tx_nfts edges leave the
   * newest one out (an offer naming the object without an NFT event), so a Move history read from
   * tx_nfts is caught.
   */
  txSequences: number[];
  json: Record<string, unknown>;
}

export interface NftSeed {
  collections: NftCollectionTruth[];
  tokens: NftTokenTruth[];
  /** Burned token (collection hex, token id) with history edges: the txs route answers empty. */
  burned: { collectionHex: string; tokenId: string };
  /** A collection address with live tokens but no collection row. */
  orphanCollectionHex: string;
  owners: string[];
}

const sha = (text: string) => createHash('sha256').update(text).digest();
export const NAMES = [
  'Initia Badges',
  'My Collection',
  'Ünïcode Çats',
  'my-collection 2',
  'Pixel Punks',
  'ibc/ABCDEF',
  'Badges of Honour',
  'Zeta',
  // For by_name: a combining mark (kept, not composed), a non-ASCII digit (kept), symbols (removed).
  'Cafe\u0301 Noir',
  'Level \u0663 Club',
  'Neon\u2605Cats \u{1F3A8}',
];
const ORIGIN = 'L1 Kitties';
const TOKEN_IDS = ['1', '2', '9', '10', '11', '100', '1a', 'A', 'b', 'token-ü'];

function timestampFor(height: number): { iso: string; rendered: string } {
  const base = Date.UTC(2026, 0, 1) + height * 1000;
  const micros = height % 3 === 0 ? 0 : (height * 12345) % 1_000_000;
  const whole = new Date(base).toISOString().slice(0, 19);
  const fraction = micros === 0 ? '' : String(micros).padStart(6, '0').replace(/0+$/, '');
  return {
    iso: `${whole}.${String(micros).padStart(6, '0')}Z`,
    rendered: `${whole}${fraction ? `.${fraction}` : ''}Z`,
  };
}

export async function seedNfts(db: Db, chain: SeedChain): Promise<NftSeed> {
  const addrBytes = chain.vm === 'evm' ? 20 : 32;
  const addrOf = (label: string) => sha(`collection-${label}`).subarray(0, addrBytes);
  const owners = chain.accounts.slice(0, 4);
  const ownerIds = new Map<string, number>();
  for (const owner of owners) {
    const { rows } = await db.query<{ id: number }>('SELECT id FROM account_dict WHERE account = $1', [
      Buffer.from(accountBytesFromString(owner, 'init')),
    ]);
    ownerIds.set(owner, rows[0]!.id);
  }
  const creator = chain.accounts[5]!;
  const creatorId = (
    await db.query<{ id: number }>('SELECT id FROM account_dict WHERE account = $1', [
      Buffer.from(accountBytesFromString(creator, 'init')),
    ])
  ).rows[0]!.id;

  const collections: NftCollectionTruth[] = [];
  const counts = new Map<string, number>();
  const tokens: NftTokenTruth[] = [];
  const orphan = addrOf('orphan');
  const colAddrs = NAMES.map((_, i) => addrOf(String(i)));
  let nftId = 0;
  const maxSeq = chain.txs.length;
  const addToken = (col: Buffer, c: number, tokenId: string, height: number, owner: string) => {
    nftId += 1;
    const colHex = col.toString('hex');
    const ts = timestampFor(height);
    const objectHex = chain.vm === 'move' ? sha(`object-${colHex}-${tokenId}`).toString('hex') : '';
    const seqs = [
      ...new Set([1 + ((nftId * 7) % maxSeq), 1 + ((nftId * 13) % maxSeq), 1 + (nftId % maxSeq)]),
    ];
    const named = c >= 0;
    tokens.push({
      collectionHex: colHex,
      tokenId,
      height,
      owner,
      nftId,
      txSequences: nftId % 5 === 0 ? [] : seqs.sort((a, b) => a - b),
      json: {
        collection_addr: `0x${colHex}`,
        collection_name: named ? NAMES[c] : '',
        collection_origin_name: named && c === 5 ? ORIGIN : '',
        object_addr: objectHex ? `0x${objectHex}` : '',
        owner,
        nft: { token_id: tokenId, uri: `ipfs://${colHex.slice(0, 6)}/${tokenId}` },
        height,
        timestamp: ts.rendered,
      },
    });
    counts.set(colHex, (counts.get(colHex) ?? 0) + 1);
  };
  colAddrs.forEach((col, c) => {
    const ids = TOKEN_IDS.slice(0, 3 + ((c * 3) % TOKEN_IDS.length));
    ids.forEach((tokenId, t) => {
      // Heights repeat across collections so (token_id, height) ties exist between collections.
      addToken(col, c, tokenId, 10 + ((t * 5) % 7), owners[(t + c) % owners.length]!);
    });
  });
  addToken(orphan, -1, '7', 12, owners[0]!);
  addToken(orphan, -1, '1', 12, owners[0]!);

  colAddrs.forEach((col, c) => {
    const colHex = col.toString('hex');
    // Pairs of collections share a creation height.
    const height = 2 + Math.floor(c / 2);
    const ts = timestampFor(height);
    const creatorText = c === 3 || c === 6 ? '' : creator;
    collections.push({
      addrHex: colHex,
      height,
      name: NAMES[c]!,
      originName: c === 5 ? ORIGIN : '',
      json: {
        object_addr: `0x${colHex}`,
        collection: {
          creator: creatorText,
          name: NAMES[c],
          origin_name: c === 5 ? ORIGIN : '',
          nfts: { handle: '', length: counts.get(colHex) ?? 0 },
        },
        height,
        timestamp: ts.rendered,
      },
    });
  });

  // A burned token: dictionary row and history edges, no live row.
  const burnedCol = colAddrs[0]!;
  const burnedId = nftId + 1;
  const dictRows = [
    ...tokens.map((t) => [t.nftId, Buffer.from(t.collectionHex, 'hex'), t.tokenId]),
    [burnedId, burnedCol, 'burned-1'],
  ];
  await insert(db, 'nft_dict (id, collection_addr, token_id)', dictRows, 'OVERRIDING SYSTEM VALUE');
  await insert(
    db,
    'nft_collection (addr, height, "timestamp", name, origin_name, creator_id, nft_count, name_key, origin_name_key)',
    collections.map((c, i) => [
      Buffer.from(c.addrHex, 'hex'),
      c.height,
      timestampFor(c.height).iso,
      c.name,
      c.originName,
      // 3: unknown creator (NULL); 6: a creator id with no dictionary row (the reference's 500).
      i === 3 ? null : i === 6 ? 999_999 : creatorId,
      counts.get(c.addrHex) ?? 0,
      nftNameKey(c.name),
      nftNameKey(c.originName),
    ]),
  );
  await insert(
    db,
    'nft (nft_id, collection_addr, token_id, object_addr, owner_id, uri, height, "timestamp")',
    tokens.map((t) => [
      t.nftId,
      Buffer.from(t.collectionHex, 'hex'),
      t.tokenId,
      t.json.object_addr ? Buffer.from(String(t.json.object_addr).slice(2), 'hex') : null,
      ownerIds.get(t.owner),
      (t.json.nft as { uri: string }).uri,
      t.height,
      timestampFor(t.height).iso,
    ]),
  );
  const holdings = new Map<string, number>();
  for (const t of tokens) {
    const key = `${ownerIds.get(t.owner)}:${t.collectionHex}`;
    holdings.set(key, (holdings.get(key) ?? 0) + 1);
  }
  await insert(
    db,
    'nft_holding (owner_id, collection_addr, nft_count)',
    [...holdings].map(([key, n]) => {
      const [owner, hex] = key.split(':') as [string, string];
      return [Number(owner), Buffer.from(hex, 'hex'), n];
    }),
  );
  const nftEventSeqs = (t: NftTokenTruth) =>
    chain.vm === 'move' ? t.txSequences.slice(0, -1) : t.txSequences;
  await insert(db, 'tx_nfts (nft_id, sequence)', [
    ...tokens.flatMap((t) => nftEventSeqs(t).map((s) => [t.nftId, s])),
    [burnedId, 1],
    [burnedId, 2],
  ]);
  if (chain.vm === 'move') await seedObjectAccounts(db, tokens);
  return {
    collections,
    tokens,
    burned: { collectionHex: burnedCol.toString('hex'), tokenId: 'burned-1' },
    orphanCollectionHex: orphan.toString('hex'),
    owners,
  };
}

/**
 * Move: each object with a history is an account (ingest greps it from the events) whose edges
 * are the token's history, with the counters and account x type edges ingest keeps beside them.
 * Tokens without history have no account row (the route answers empty).
 */
async function seedObjectAccounts(db: Db, tokens: NftTokenTruth[]): Promise<void> {
  const withHistory = tokens.filter((t) => t.txSequences.length > 0);
  const idOf = (t: NftTokenTruth) => 100_000 + t.nftId;
  await insert(
    db,
    'account_dict (id, account)',
    withHistory.map((t) => [idOf(t), Buffer.from(String(t.json.object_addr).slice(2), 'hex')]),
    'OVERRIDING SYSTEM VALUE',
  );
  await insert(
    db,
    'tx_accounts (account_id, sequence, signer)',
    withHistory.flatMap((t) => t.txSequences.map((s) => [idOf(t), s, false])),
  );
  await insert(
    db,
    'tx_account_counts (account_id, txs, signed)',
    withHistory.map((t) => [idOf(t), t.txSequences.length, 0]),
  );
  await db.query(
    `INSERT INTO tx_account_msg_types SELECT a.account_id, m.msg_type_id, a.sequence, a.signer
       FROM tx_accounts a JOIN tx_msg_types m ON m.sequence = a.sequence WHERE a.account_id >= 100000`,
  );
  await seedAccountTypeSets(db, 'a.account_id >= 100000');
}

async function insert(db: Db, target: string, rows: unknown[][], overriding = ''): Promise<void> {
  for (let start = 0; start < rows.length; start += 200) {
    const chunk = rows.slice(start, start + 200);
    const params: unknown[] = [];
    const values = chunk.map(
      (row) => `(${row.map((v) => (params.push(v), `$${params.length}`)).join(', ')})`,
    );
    await db.query(`INSERT INTO ${target} ${overriding} VALUES ${values.join(', ')}`, params);
  }
}

/** Byte-wise (C collation) comparison of token ids, as the database orders them. */
export function compareBytes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

export { toBech32 };
