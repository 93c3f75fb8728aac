import type { VmType } from '../../shared/config.js';
import { toBech32, tryAccountBytes } from '../../shared/address.js';
import { createNftOwnerLookups, type NftOwnerLookups } from '../../node/nft-lookups.js';
import type { Db } from '../../store/driver/db.js';
import { readStoredBounds } from '../../store/readers/stored-heights.js';
import { loadDerivationCheckpoint } from '../../store/writers/derivation-checkpoint.js';
import { createBalanceSource } from '../derive/registry.js';
import type { BalanceSource } from '../derive/rich-list-sources.js';
import type { Drift } from './compare.js';
import type { NodeRows } from './node-rows.js';

/**
 * `verify`'s state checks (docs/ingest.md §11.1): each stored NFT's owner against the node's at the
 * block checkpoint (the height the NFT rows stand at), and each stored rich-list balance against the
 * node's at the rich-list stage's height — through the look-ups ingest itself uses (the NFT
 * collectors' REST reads, the rich-list stage's balance source). Either all of them, or a sample
 * drawn by a seed (the same seed, the same rows), so a schedule can walk a large index.
 */
export interface StateCheck {
  /** Tokens and balances to check each: a number draws that many; `all` checks every one. */
  sample: number | 'all';
  seed: number;
  accountPrefix: string;
}

export interface StateReport {
  /** Height the owners were read at, tokens checked. */
  nfts: { height: number; checked: number };
  /** Height the balances were read at (the stage's), balances checked; absent without the stage. */
  richList?: { height: number; checked: number };
  drifts: Drift[];
}

/** Rows per read of the database, and node reads in flight per page. */
const PAGE = 200;

export async function verifyState(db: Db, node: NodeRows, check: StateCheck): Promise<StateReport> {
  const owners = createNftOwnerLookups({ rest: node.clients.rest });
  const nfts = await verifyOwners(db, owners, node.chain.vmType, check);
  const stage = await loadDerivationCheckpoint(db, 'rich_list');
  const source =
    stage && createBalanceSource({ chain: node.chain, ...node.clients, accountPrefix: check.accountPrefix });
  const balances = source ? await verifyBalances(db, source, node.chain.vmType, check) : undefined;
  return {
    nfts: { height: nfts.height ?? (await readStoredBounds(db)).indexed, checked: nfts.checked },
    ...(balances && stage
      ? { richList: { height: balances.height ?? stage.height, checked: balances.checked } }
      : {}),
    drifts: [...nfts.drifts, ...(balances?.drifts ?? [])],
  };
}

/**
 * Pages of stored rows, each page's node reads at once: `PAGE` rows after the last one read. Each
 * page's statement reads the height its rows stand at too (`at`), in the same snapshot, so a
 * running indexer moving on between pages never pairs rows with another height's state.
 */
async function eachPage<Row extends { at: string }>(
  check: StateCheck,
  read: (after: Row | undefined, limit: number) => Promise<Row[]>,
  fn: (rows: Row[], height: number) => Promise<void>,
): Promise<{ checked: number; height: number | undefined }> {
  let checked = 0;
  let height: number | undefined;
  let after: Row | undefined;
  for (;;) {
    const limit = check.sample === 'all' ? PAGE : Math.min(PAGE, check.sample - checked);
    if (limit <= 0) return { checked, height };
    const rows = await read(after, limit);
    if (rows.length === 0) return { checked, height };
    const at = Number(rows[0]!.at);
    height ??= at;
    await fn(rows, at);
    checked += rows.length;
    after = rows[rows.length - 1];
  }
}

/**
 * How a page is read: `all` walks the primary key (`pk`: its columns, compared as a row so the
 * index serves each page); a sample walks a hash of the key's text and the seed (the same seed,
 * the same rows; each page a scan, for the few pages a sample takes). `$1…` are the last row's.
 */
function pageOrder(check: StateCheck, pk: { columns: string[]; casts: string[]; text: string }) {
  if (check.sample === 'all') {
    const after = pk.columns.map((_, i) => `$${i + 2}::${pk.casts[i]}`).join(', ');
    return {
      key: pk.text,
      where: `(${pk.columns.join(', ')}) > (${after})`,
      order: pk.columns.join(', '),
      params: (last: string[] | undefined) => last ?? pk.casts.map((c) => (c === 'bigint' ? '-1' : '')),
    };
  }
  const hash = `md5(${pk.text} || ':' || '${Math.trunc(check.seed)}')`;
  return {
    key: hash,
    where: `${hash} > $2`,
    order: hash,
    params: (_last: string[] | undefined, key: string | undefined) => [key ?? ''],
  };
}

interface NftRow {
  key: string;
  nft_id: string;
  at: string;
  collection: Uint8Array;
  token_id: string;
  object_addr: Uint8Array | null;
  owner: Uint8Array;
}

async function verifyOwners(db: Db, owners: NftOwnerLookups, vm: VmType, check: StateCheck) {
  const drifts: Drift[] = [];
  const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
  const text = (b: Uint8Array) => toBech32(b, check.accountPrefix);
  const { checked, height } = await eachPage<NftRow>(
    check,
    async (after, limit) => {
      const page = pageOrder(check, { columns: ['n.nft_id'], casts: ['bigint'], text: 'n.nft_id::text' });
      const { rows } = await db.query<NftRow>(
        `SELECT ${page.key} AS key, n.nft_id::text AS nft_id,
                (SELECT height FROM checkpoint WHERE stream = 'blocks')::text AS at,
                n.collection_addr AS collection, n.token_id, n.object_addr, a.account AS owner
           FROM nft n JOIN account_dict a ON a.id = n.owner_id
          WHERE ${page.where} ORDER BY ${page.order} LIMIT $1`,
        [limit, ...page.params(after && [after.nft_id], after?.key)],
      );
      return rows;
    },
    async (rows, at) => {
      const answers = await Promise.all(
        rows.map((r) => {
          if (vm === 'move') return owners.moveOwner(`0x${hex(r.object_addr ?? r.collection)}`, at);
          if (vm === 'wasm') return owners.wasmOwner(text(r.collection), r.token_id, at);
          return owners.evmOwner(`0x${hex(r.collection)}`, r.token_id, at);
        }),
      );
      rows.forEach((r, i) => {
        const answer = answers[i];
        const bytes = answer === undefined ? undefined : tryAccountBytes(answer, check.accountPrefix);
        if (bytes && hex(bytes) === hex(r.owner)) return;
        const collection = `0x${hex(r.collection)}`;
        drifts.push({
          height: at,
          kind: 'nft.owner',
          key: `${collection} ${r.token_id}`,
          route: `/indexer/nft/v1/tokens/by_collection/${collection}?token_id=${encodeURIComponent(r.token_id)}`,
          stored: text(r.owner),
          node: bytes ? text(bytes) : (answer ?? ''),
        });
      });
    },
  );
  return { checked, height, drifts };
}

interface BalanceRow {
  key: string;
  account_id: string;
  at: string;
  denom: string;
  account: Uint8Array;
  amount: string;
}

async function verifyBalances(db: Db, source: BalanceSource, vm: VmType, check: StateCheck) {
  const drifts: Drift[] = [];
  const { checked, height } = await eachPage<BalanceRow>(
    check,
    async (after, limit) => {
      const page = pageOrder(check, {
        columns: ['r.denom', 'r.account_id'],
        casts: ['text', 'bigint'],
        text: `r.denom || ' ' || r.account_id::text`,
      });
      const { rows } = await db.query<BalanceRow>(
        `SELECT ${page.key} AS key, r.account_id::text AS account_id,
                (SELECT height FROM checkpoint WHERE stream = 'rich_list')::text AS at,
                r.denom, a.account, r.amount::text AS amount
           FROM rich_list r JOIN account_dict a ON a.id = r.account_id
          WHERE ${page.where} ORDER BY ${page.order} LIMIT $1`,
        [limit, ...page.params(after && [after.denom, after.account_id], after?.key)],
      );
      return rows;
    },
    async (rows, at) => {
      const pairs = rows.map((r) => ({ denom: r.denom, account: Buffer.from(r.account).toString('hex') }));
      const amounts = await source.balancesAt(pairs, at);
      rows.forEach((r, i) => {
        const node = String(amounts[i]);
        if (node === r.amount) return;
        const account = vm === 'evm' ? `0x${pairs[i]!.account}` : toBech32(r.account, check.accountPrefix);
        drifts.push({
          height: at,
          kind: 'rich_list.balance',
          key: `${r.denom} ${account}`,
          route: `/indexer/richlist/v1/${encodeURIComponent(r.denom)}`,
          stored: r.amount,
          node,
        });
      });
    },
  );
  return { checked, height, drifts };
}
