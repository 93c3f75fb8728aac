import { InputError } from '../../shared/errors.js';
import { createNftTokenReader, type TokenPosition } from '../../store/readers/nft-tokens.js';
import { renderToken } from '../../wire/nft-token.js';
import { accountTextMemo } from '../account-text.js';
import { tokenCursor } from '../nft-render.js';
import type { PaginationQuery } from '../pagination.js';
import { parseAccountPagination, settleChain } from './account-chains.js';
import type { DeployedChain } from './directory.js';

interface NftWalk {
  /** Index (in the walk's chains) of the chain the next page starts in, and its position there. */
  chain: number;
  after?: TokenPosition;
  unavailable: string[];
}

const badKey = () =>
  new InputError('invalid_pagination', 'pagination.key is not a key this route handed out');

function decodeNftKey(key: string): NftWalk {
  try {
    const w = JSON.parse(Buffer.from(key, 'base64').toString('utf8')) as {
      n: number;
      a?: [number, string, string];
      u: string[];
    };
    if (!Number.isSafeInteger(w.n) || w.n < 0 || !Array.isArray(w.u)) throw badKey();
    const after = w.a && { height: w.a[0], tokenId: w.a[1], collection: Buffer.from(w.a[2], 'hex') };
    return { chain: w.n, ...(after ? { after } : {}), unavailable: w.u.map(String) };
  } catch {
    throw badKey();
  }
}

function encodeNftKey(w: NftWalk): string {
  const a = w.after && [w.after.height, w.after.tokenId, w.after.collection!.toString('hex')];
  return Buffer.from(JSON.stringify({ n: w.chain, ...(a ? { a } : {}), u: w.unavailable })).toString(
    'base64',
  );
}

/**
 * An account's NFTs across chains (docs/chains.md §4.2): chain after chain in the deployment's
 * order, each chain's tokens in its `/tokens/by_account` order (newest height first by default).
 */
export async function accountNftsPage(
  req: { account: Uint8Array; chains: DeployedChain[]; query: PaginationQuery },
  prefix: string,
): Promise<string> {
  const key = req.query['pagination.key'];
  const { 'pagination.key': _key, ...rest } = req.query;
  const page = parseAccountPagination(rest, 'offset');
  const walk: NftWalk = key ? decodeNftKey(key) : { chain: 0, unavailable: [] };
  const accountText = accountTextMemo(prefix, 1024);
  const items: string[] = [];
  let total = 0;
  let next: NftWalk | undefined;
  const results = await Promise.all(
    req.chains.map((c, index) =>
      settleChain(c, async (r) => {
        const ownerId = await r.dicts.accountId(req.account);
        if (ownerId === undefined || walk.unavailable.includes(c.chainId)) return { rows: [], total: '0' };
        const reach = index < walk.chain ? 1 : page.limit + 1;
        const after = index === walk.chain ? walk.after : undefined;
        const plan = { orderBy: 'height' as const, desc: page.reverse, limit: reach, offset: 0 };
        return createNftTokenReader(r.ctx).list(
          after ? { ...plan, after } : plan,
          { ownerId },
          page.countTotal,
        );
      }),
    ),
  );
  const unavailable = new Set(walk.unavailable);
  results.forEach((res, index) => {
    if (!res.ok) {
      unavailable.add(res.chain.chainId);
      return;
    }
    total += Number(res.value.total);
    if (index < walk.chain || next) return;
    for (const row of res.value.rows) {
      if (items.length === page.limit) {
        next = { chain: index, unavailable: [] };
        return;
      }
      items.push(
        `{"chain_id":${JSON.stringify(res.chain.chainId)},"token":${renderToken(row, accountText)}}`,
      );
      const c = tokenCursor(row, true) as { height: number; token_id: string; collection_addr: string };
      walk.after = {
        height: c.height,
        tokenId: c.token_id,
        collection: Buffer.from(c.collection_addr.slice(2), 'hex'),
      };
      walk.chain = index;
    }
    delete walk.after;
    walk.chain = index + 1;
  });
  const list = [...unavailable];
  const nextKey = next ? encodeNftKey({ ...walk, chain: next.chain, unavailable: list }) : null;
  const pagination = { next_key: nextKey, total: page.countTotal ? String(total) : '0' };
  return `{"items":[${items.join(',')}],"pagination":${JSON.stringify(pagination)},"unavailable":${JSON.stringify(list)}}`;
}
