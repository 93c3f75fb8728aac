import { accountTxWalkStep, committedTxSequence } from '../../store/readers/account-activity.js';
import type { JsonText } from '../../store/readers/stored-json.js';
import { storedTxTimestamp } from '../../wire/tx.js';
import type { PaginationQuery } from '../pagination.js';
import { parseIsSigner, parseMsgTypes } from '../params.js';
import { parseAccountPagination, settleChain, type ChainReaders } from './account-chains.js';
import {
  decodeWalkCursor,
  encodeWalkCursor,
  type AccountWalkCursor,
  type ChainPosition,
} from './account-cursor.js';
import { mergePage, timeKey, type MergeItem } from './account-merge.js';
import type { DeployedChain } from './directory.js';

export interface AccountTxsRequest {
  account: Uint8Array;
  chains: DeployedChain[];
  query: PaginationQuery & { msgs?: string[]; is_signer?: string };
}

interface ChainRows {
  /** The chain's snapshot: the key's, or its committed sequence read with the rows (first page). */
  snapshot: number;
  rows: MergeItem<JsonText>[];
  total: number;
}

/**
 * The chain's next `limit` rows of the walk (and its kept total when asked) in one statement; on
 * the first page (no position yet) the same statement fixes the chain's snapshot.
 */
async function chainRows(
  r: ChainReaders,
  chainId: string,
  w: {
    account: Uint8Array;
    names: string[] | undefined;
    signerOnly: boolean;
    desc: boolean;
    position: ChainPosition | undefined;
    limit: number;
    countTotal: boolean;
  },
): Promise<ChainRows> {
  const atMost = w.position?.snapshot;
  const accountId = await r.dicts.accountId(w.account);
  if (accountId === undefined)
    return { snapshot: atMost ?? (await committedTxSequence(r.ctx)), rows: [], total: 0 };
  const msgTypeIds = w.names === undefined ? undefined : await r.dicts.msgTypeIds(w.names);
  const step = await accountTxWalkStep(r.ctx, {
    accountId,
    signerOnly: w.signerOnly,
    msgTypeIds,
    desc: w.desc,
    atMost,
    ...(w.position?.after === undefined ? {} : { after: w.position.after }),
    limit: w.limit,
    countTotal: w.countTotal,
  });
  return {
    snapshot: step.snapshot,
    rows: step.rows.map((row) => ({
      time: timeKey(storedTxTimestamp(row.data)),
      chainId,
      sequence: row.sequence,
      value: row.data,
    })),
    total: step.total,
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
  // The first page fixes each chain's snapshot with its rows (docs/chains.md §4.1); a chain that
  // cannot answer then stays out of the whole walk.
  const opening = key === undefined || key === '';
  const cursor: AccountWalkCursor = opening
    ? { desc: page.reverse, chains: new Map() }
    : decodeWalkCursor(key);
  const walkChains = opening ? req.chains : req.chains.filter((c) => cursor.chains.has(c.chainId));
  const w = {
    account: req.account,
    names: parseMsgTypes(query.msgs),
    signerOnly: parseIsSigner(query.is_signer),
    desc: cursor.desc,
    limit: page.limit + 1,
    countTotal: page.countTotal,
  };
  const results = await Promise.all(
    walkChains
      .filter((c) => !cursor.chains.get(c.chainId)?.unavailable)
      .map((c) =>
        settleChain(c, (r) => chainRows(r, c.chainId, { ...w, position: cursor.chains.get(c.chainId) })),
      ),
  );
  const candidates: MergeItem<JsonText>[] = [];
  let total = 0;
  for (const res of results) {
    const chainId = res.chain.chainId;
    if (!res.ok) {
      const position = cursor.chains.get(chainId);
      if (position) position.unavailable = true;
      else cursor.chains.set(chainId, { snapshot: 0, unavailable: true });
      continue;
    }
    if (opening) cursor.chains.set(chainId, { snapshot: res.value.snapshot });
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
