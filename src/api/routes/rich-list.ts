import type { FastifyInstance } from 'fastify';
import { InputError } from '../../shared/errors.js';
import { encodeKey, parsePagination, previousOffsetKey, type PageRequest } from '../pagination.js';
import type { HolderPlan } from '../../store/readers/rich-list.js';
import { renderHolder } from '../../wire/rich-list-holder.js';
import { accountTextMemo } from '../account-text.js';
import { renderList } from '../render.js';
import { Type } from '@sinclair/typebox';
import { PaginationQuery, errorResponses, ref } from '../schemas.js';
import { jsonRoute, type RouteDeps } from './define.js';

const DENOM_RE = /^[a-z0-9][a-z0-9/:._-]{0,127}$/;

/**
 * The denom path segment (docs/api.md §4.7): `%2F` stands for `/` (the segment is not percent-decoded
 * otherwise), and case does not matter. The stored denom is lower-case (EVM: the ERC20 contract).
 */
export function parseDenom(raw: string): string {
  const denom = raw.replace(/%2F/gi, '/').toLowerCase();
  if (!DENOM_RE.test(denom)) {
    throw new InputError('invalid_denom', `[INVALID_VALUE] invalid value for denom: ${raw} (not a denom)`);
  }
  return denom;
}

/** Keyset from a cursor this route handed out (`{"amount","account_id"}`); else the offset. */
function holderPlan(page: PageRequest): HolderPlan {
  const { amount, account_id: accountId } = page.cursor ?? {};
  const plan = { limit: page.limit, offset: page.offset, desc: page.reverse };
  if (typeof amount === 'string' && /^\d{1,78}$/.test(amount) && Number.isSafeInteger(accountId)) {
    return { ...plan, offset: 0, after: { amount, accountId: accountId as number } };
  }
  return plan;
}

/** GET /indexer/richlist/v1/{denom} (docs/api.md §4.7 with docs/api.md §0.4): on every VM. */
export function registerRichListRoutes(app: FastifyInstance, deps: RouteDeps): void {
  const { richList } = deps.readers;
  const evm = deps.options.vmType === 'evm';
  const bech32 = accountTextMemo(deps.options.accountPrefix);
  jsonRoute(app, deps, {
    url: '/indexer/richlist/v1/:denom',
    ttlSeconds: 10,
    schema: {
      tags: ['Rich List'],
      summary: 'Holders of a denom, largest balance first',
      params: Type.Object({ denom: Type.String() }),
      querystring: PaginationQuery,
      response: { 200: ref('richlist.TokenHoldersResponse'), ...errorResponses },
    },
    async handler({ query, params }) {
      const denom = parseDenom(params.denom);
      const page = parsePagination(query, 'offset');
      const plan = holderPlan(page);
      const result = await richList.holders(denom, plan, { countTotal: page.countTotal });
      const last = result.rows.at(-1);
      // The next page starts after the last row, so balances changing between requests never make
      // a walk repeat or skip a holder that kept its place.
      const nextKey =
        result.hasMore && last
          ? encodeKey(JSON.stringify({ amount: last.amount, account_id: last.accountId }))
          : null;
      const holders = result.rows.map((r) =>
        renderHolder(evm ? '0x' + Buffer.from(r.account).toString('hex') : bech32(r.account), r.amount),
      );
      // docs/api.md §4.7 answers with builder (A): the offset one page back. A page after a cursor has no
      // offset to step back from, so it has none (as builder B's cursor pages).
      const previousKey = plan.after ? null : previousOffsetKey(plan);
      return renderList('holders', holders, {
        previous_key: previousKey,
        next_key: nextKey,
        total: result.total,
      });
    },
  });
}
