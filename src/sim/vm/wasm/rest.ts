import { Lru } from '../../chain/lru.js';
import {
  collectionCreatedBy,
  collectionName,
  COLLECTIONS,
  ibcCollectionCreatedBy,
  ibcTokensAfter,
  tokensAfter,
  type NftPlanContext,
} from '../../chain/nft-lifecycle.js';
import { grpcError, ok, type RestAnswer } from '../../surfaces/rest/blocks.js';
import { balanceAt, queryHeight, type StateContext } from '../../surfaces/rest/state.js';
import type { SimHttpRequest } from '../../types.js';
import type { WasmContracts } from './model.js';

/** Wasm contract info and smart queries (cw721, cw20) as of a height. */
export interface WasmRestContext {
  contracts: WasmContracts;
  plan: NftPlanContext;
  state: StateContext;
  creatorOf(c: number): string;
  lastTxAt(height: number): number;
}

interface ContractView {
  kind: 'cw721' | 'cw20' | 'ics721' | 'market';
  label: string;
  creator: string;
  codeId: number;
  name: string;
  symbol: string;
  /** tokenId → {owner, uri} for cw721 contracts. */
  tokens?: Map<string, { owner: string; uri: string }>;
}

function contractsAt(ctx: WasmRestContext, lastG: number): Map<string, ContractView> {
  const k = ctx.contracts;
  const out = new Map<string, ContractView>();
  const genesis = ctx.state.accounts[0]!.bech32;
  out.set(k.cw20, {
    kind: 'cw20',
    label: 'cw20-sim',
    creator: genesis,
    codeId: 3,
    name: 'Sim Token',
    symbol: 'SIMT',
  });
  out.set(k.ics721, { kind: 'ics721', label: 'ics721', creator: genesis, codeId: 2, name: '', symbol: '' });
  out.set(k.escrow, { kind: 'market', label: 'market', creator: genesis, codeId: 4, name: '', symbol: '' });
  const tokens = tokensAfter(ctx.plan, lastG);
  for (let c = 0; c < COLLECTIONS; c++) {
    if (!collectionCreatedBy(ctx.plan, c, lastG)) continue;
    const map = new Map(
      tokens
        .filter((t) => t.collection === c)
        .map((t) => [t.tokenId, { owner: k.holder(t.owner), uri: t.uri }]),
    );
    out.set(k.cw721(c), {
      kind: 'cw721',
      label: `cw721-${c}`,
      creator: ctx.creatorOf(c),
      codeId: 1,
      name: collectionName(c),
      symbol: `SIM${c}`,
      tokens: map,
    });
  }
  if (ibcCollectionCreatedBy(ctx.plan, lastG)) {
    const map = new Map(
      ibcTokensAfter(ctx.plan, lastG).map((t) => [t.tokenId, { owner: k.holder(t.owner), uri: t.uri }]),
    );
    out.set(k.ibcCw721, {
      kind: 'cw721',
      label: 'ics721-class',
      creator: k.ics721,
      codeId: 1,
      name: k.ibcClassName,
      symbol: 'IBC',
      tokens: map,
    });
  }
  return out;
}

const QUERY_TYPES: Record<ContractView['kind'], string> = {
  cw721: 'cw721_base::msg::QueryMsg',
  cw20: 'cw20_base::msg::QueryMsg',
  ics721: 'ics721::msg::QueryMsg',
  market: 'market::msg::QueryMsg',
};

function smartQuery(
  ctx: WasmRestContext,
  view: ContractView,
  address: string,
  query: Record<string, unknown>,
  height: number,
): RestAnswer {
  const [variant, raw] = Object.entries(query)[0] ?? ['', {}];
  const args = (raw ?? {}) as Record<string, unknown>;
  const data = (value: unknown): RestAnswer => ok(JSON.stringify({ data: value }));
  const tokenId = String(args.token_id ?? '');
  if (view.kind === 'cw721') {
    const token = view.tokens?.get(tokenId);
    if (variant === 'contract_info') return data({ name: view.name, symbol: view.symbol });
    if (variant === 'num_tokens') return data({ count: view.tokens?.size ?? 0 });
    if ((variant === 'nft_info' || variant === 'owner_of') && !token) {
      return grpcError(
        500,
        2,
        'cw721_base::state::TokenInfo<core::option::Option<cosmwasm_std::results::empty::Empty>> not found: query wasm contract failed: unknown request',
      );
    }
    if (variant === 'nft_info') return data({ token_uri: token!.uri, extension: null });
    if (variant === 'owner_of') return data({ owner: token!.owner, approvals: [] });
  }
  if (view.kind === 'cw20') {
    if (variant === 'token_info')
      return data({ name: view.name, symbol: view.symbol, decimals: 6, total_supply: '1000000000000000' });
    if (variant === 'balance')
      return data({ balance: balanceAt(ctx.state, String(args.address ?? ''), 'cw20:' + address, height) });
  }
  return grpcError(
    500,
    2,
    `Error parsing into type ${QUERY_TYPES[view.kind]}: unknown variant \`${variant}\`: query wasm contract failed: unknown request`,
  );
}

export function createWasmRest(ctx: WasmRestContext): (req: SimHttpRequest) => RestAnswer | undefined {
  const cache = new Lru<number, Map<string, ContractView>>(8);
  const at = (lastG: number): Map<string, ContractView> =>
    cache.getOrSet(lastG, () => contractsAt(ctx, lastG));
  return (req) => {
    const m = /^\/cosmwasm\/wasm\/v1\/contract\/([a-z0-9]+)(?:\/smart\/([A-Za-z0-9+/=_-]+))?$/.exec(req.path);
    if (!m) return undefined;
    const h = queryHeight(ctx.state, req);
    if (typeof h !== 'number') return h;
    const address = m[1]!;
    const view = at(ctx.lastTxAt(h)).get(address);
    if (!view) return grpcError(404, 5, `no such contract: ${address}: not found`);
    if (m[2] === undefined) {
      return ok(
        JSON.stringify({
          address,
          contract_info: {
            code_id: String(view.codeId),
            creator: view.creator,
            admin: view.creator,
            label: view.label,
            created: null,
            ibc_port_id: view.kind === 'ics721' ? `wasm.${address}` : '',
            extension: null,
          },
        }),
      );
    }
    let query: unknown;
    try {
      query = JSON.parse(Buffer.from(m[2].replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('utf8'));
    } catch {
      return grpcError(400, 3, 'invalid query data: invalid');
    }
    if (query === null || typeof query !== 'object' || Array.isArray(query))
      return grpcError(400, 3, 'query data must be a JSON object: invalid');
    return smartQuery(ctx, view, address, query as Record<string, unknown>, h);
  };
}
