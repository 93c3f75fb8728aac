import { accountSummary } from '../../store/readers/account-activity.js';
import { readCheckpointHeights } from '../../store/readers/chain-meta.js';
import { settleChain } from './account-chains.js';
import type { DeployedChain } from './directory.js';

const timeOf = (data: string | Buffer | undefined): string | null => {
  if (data === undefined) return null;
  return (JSON.parse(typeof data === 'string' ? data : data.toString('utf8')) as { timestamp: string })
    .timestamp;
};

/** Per chain: tx counts, first and last activity, NFTs held, rich-list balances (docs/chains.md §4.3). */
export async function accountSummaryBody(account: Uint8Array, chains: DeployedChain[]): Promise<string> {
  const results = await Promise.all(
    chains.map((c) =>
      settleChain(c, async (r) => {
        const stages = await readCheckpointHeights(r.ctx.db);
        const accountId = await r.dicts.accountId(account);
        const richList = stages.rich_list;
        const s =
          accountId === undefined
            ? { txs: 0, signed: 0, nfts: 0, balances: [] }
            : await accountSummary(r.ctx, accountId, { nfts: true, balances: richList !== undefined });
        return {
          chain_id: c.chainId,
          txs: { all: String(s.txs), signed: String(s.signed) },
          first_activity: timeOf('first' in s ? s.first : undefined),
          last_activity: timeOf('last' in s ? s.last : undefined),
          nfts_held: String(s.nfts),
          ...(richList !== undefined ? { balances: { height: richList, coins: s.balances } } : {}),
        };
      }),
    ),
  );
  const served = results.flatMap((r) => (r.ok ? [r.value] : []));
  const unavailable = results.flatMap((r) => (r.ok ? [] : [r.chain.chainId]));
  return JSON.stringify({ chains: served, unavailable });
}
