import {
  accountTxsWithin,
  committedTxSequence,
  keptAccountTxCount,
} from '../../store/readers/account-activity.js';
import type { JsonText } from '../../store/readers/stored-json.js';
import type { PaginationQuery } from '../pagination.js';
import { parseIsSigner, parseMsgTypes } from '../params.js';
import { parseAccountPagination, settleChain, type ChainReaders } from './account-chains.js';
import { decodeWalkCursor, encodeWalkCursor, type AccountWalkCursor } from './account-cursor.js';
import { mergePage, timeKey, type MergeItem } from './account-merge.js';
import type { DeployedChain } from './directory.js';

export interface AccountTxsRequest {
  account: Uint8Array;
  chains: DeployedChain[];
  query: PaginationQuery & { msgs?: string[]; is_signer?: string };
}

interface ChainRows {
  rows: MergeItem<JsonText>[];
  total: number;
}

/** The first page's snapshot: each chain's committed sequence, or unavailable. */
async function openWalk(chains: DeployedChain[], desc: boolean): Promise<AccountWalkCursor> {
  const snapshots = await Promise.all(chains.map((c) => settleChain(c, (r) => committedTxSequence(r.ctx))));
  const cursor: AccountWalkCursor = { desc, chains: new Map() };
  for (const s of snapshots) {
    cursor.chains.set(s.chain.chainId, s.ok ? { snapshot: s.value } : { snapshot: 0, unavailable: true });
  }
  return cursor;
}

const stampOf = (data: JsonText): string => {
  const tx = JSON.parse(typeof data === 'string' ? data : data.toString('utf8')) as { timestamp: string };
  return timeKey(tx.timestamp);
};

/** The chain's next `limit` rows of the walk (and its kept total when asked). */
async function chainRows(
  r: ChainReaders,
  chainId: string,
  w: {
    account: Uint8Array;
    names: string[] | undefined;
    signerOnly: boolean;
    cursor: AccountWalkCursor;
    limit: number;
    countTotal: boolean;
  },
): Promise<ChainRows> {
  const position = w.cursor.chains.get(chainId)!;
  const accountId = await r.dicts.accountId(w.account);
  if (accountId === undefined) return { rows: [], total: 0 };
  const msgTypeIds = w.names === undefined ? undefined : await r.dicts.msgTypeIds(w.names);
  const filter = { accountId, signerOnly: w.signerOnly, msgTypeIds };
  const [rows, total] = await Promise.all([
    accountTxsWithin(r.ctx, {
      ...filter,
      desc: w.cursor.desc,
      atMost: position.snapshot,
      ...(position.after === undefined ? {} : { after: position.after }),
      limit: w.limit,
    }),
    w.countTotal ? keptAccountTxCount(r.ctx, filter) : 0,
  ]);
  return {
    rows: rows.map((row) => ({ time: stampOf(row.data), chainId, sequence: row.sequence, value: row.data })),
    total,
  };
}

/**
 * One page of an account's txs across chains (docs/chains.md §4.1): the walk's snapshot from the
 * key (or fixed now), every available chain's next rows within it, merged in walk order.
 */
export async function accountTxsPage(req: AccountTxsRequest): Promise<string> {
  const { query } = req;
  const key = query['pagination.key'];
  const { 'pagination.key': _key, ...rest } = query;
  const page = parseAccountPagination(rest, 'sequence');
  const cursor =
    key !== undefined && key !== '' ? decodeWalkCursor(key) : await openWalk(req.chains, page.reverse);
  const walkChains = req.chains.filter((c) => cursor.chains.has(c.chainId));
  const names = parseMsgTypes(query.msgs);
  const w = {
    account: req.account,
    names,
    signerOnly: parseIsSigner(query.is_signer),
    cursor,
    limit: page.limit + 1,
    countTotal: page.countTotal,
  };
  const results = await Promise.all(
    walkChains
      .filter((c) => !cursor.chains.get(c.chainId)!.unavailable)
      .map((c) => settleChain(c, (r) => chainRows(r, c.chainId, w))),
  );
  const candidates: MergeItem<JsonText>[] = [];
  let total = 0;
  for (const res of results) {
    if (!res.ok) {
      cursor.chains.get(res.chain.chainId)!.unavailable = true;
      continue;
    }
    candidates.push(...res.value.rows);
    total += res.value.total;
  }
  const merged = mergePage(candidates, page.limit, cursor.desc);
  for (const item of merged.items) cursor.chains.get(item.chainId)!.after = item.sequence;
  const unavailable = [...cursor.chains].filter(([, p]) => p.unavailable).map(([id]) => id);
  const items = merged.items.map(
    (i) =>
      `{"chain_id":${JSON.stringify(i.chainId)},"tx":${typeof i.value === 'string' ? i.value : i.value.toString('utf8')}}`,
  );
  const pagination = {
    next_key: merged.hasMore ? encodeWalkCursor(cursor) : null,
    total: page.countTotal ? String(total) : '0',
  };
  return `{"items":[${items.join(',')}],"pagination":${JSON.stringify(pagination)},"unavailable":${JSON.stringify(unavailable)}}`;
}
