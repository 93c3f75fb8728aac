import { readFileSync } from 'node:fs';
import { grpcError, ok, type RestAnswer } from '../surfaces/rest/blocks.js';
import { queryHeight } from '../surfaces/rest/state.js';
import { abiString, SELECTOR } from '../vm/evm/abi.js';
import type { SimHttpRequest } from '../types.js';

/**
 * The Move resources recorded next to replayed txs (the samples' `mockApiResponses…` entries for
 * `GET /initia/move/v1/accounts/{addr}/resources`), served as the node's `by_struct_tag` route so
 * state look-ups of a replayed chain (NFT token ids, uris, collections) answer what the recorded
 * chain answered. Heights are ignored: a sample records one state per object.
 */
export type RecordedResources = Map<
  string,
  Array<{ struct_tag: string; move_resource: string; raw_bytes?: string; address?: string }>
>;

const RESOURCES_PATH = /^\/initia\/move\/v1\/accounts\/(0x[0-9a-fA-F]+)\/resources$/;
const BY_STRUCT_TAG = /^\/initia\/move\/v1\/accounts\/(0x[0-9a-fA-F]+)\/resources\/by_struct_tag$/;

const addrKey = (hex: string): string => hex.slice(2).toLowerCase().replace(/^0+/, '');

export function recordedResources(files: readonly string[]): RecordedResources {
  const out: RecordedResources = new Map();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (value === null || typeof value !== 'object') return;
    for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
      if (key === 'GET' && v !== null && typeof v === 'object') {
        for (const [path, body] of Object.entries(v as Record<string, unknown>)) {
          const m = RESOURCES_PATH.exec(path);
          const list = (body as { resources?: unknown } | null)?.resources;
          if (m && Array.isArray(list)) out.set(addrKey(m[1]!), list as never);
        }
      } else visit(v);
    }
  };
  for (const file of files) visit(JSON.parse(readFileSync(file, 'utf8')) as unknown);
  return out;
}

export function createRecordedResourceRest(
  resources: RecordedResources,
): (req: SimHttpRequest) => RestAnswer | undefined {
  return (req) => {
    const m = BY_STRUCT_TAG.exec(req.path);
    if (!m) return undefined;
    const tag = req.query.get('struct_tag') ?? '';
    const recorded = resources.get(addrKey(m[1]!));
    if (!recorded) return undefined; // not a recorded object: the generated chain answers
    const found = recorded.find((r) => r.struct_tag === tag);
    if (!found) return grpcError(404, 5, `resource ${tag} not found at ${m[1]}: not found`);
    return ok(JSON.stringify({ resource: found }));
  };
}

/**
 * Wasm contracts whose state the replayed recordings reveal, so the replay node answers the
 * `contract/{addr}` (ContractInfo) and `smart` `contract_info` / `nft_info` queries a real node
 * would for them. Everything comes from the recorded txs themselves, never from a table keyed by
 * sample:
 * - a successful `MsgInstantiateContract[2]`: its `instantiate` event names the address; the
 *   message gives code id, creator (sender), admin and label, and — for cw721/sg721-style init
 *   messages carrying `name` and `symbol` — the `contract_info` answer. It exists from that height.
 * - an ICS-721 redemption (`wasm` event with `is_redemption=true` and `nft_contract`): the packet's
 *   `classData` is the origin collection's own data, which for a class that left this chain is
 *   the local contract's `contract_info` (name, symbol) and its wasm ContractInfo (creator…).
 *   The contract predates the recordings, so it is known at every height.
 * - a successful cw721 `mint` execute message whose `wasm` event confirms the mint of that token
 *   id: `nft_info` of the token answers the message's `token_uri` from that height on.
 */
export interface RecordedContract {
  meta?: { codeId: string; creator: string; admin: string; label: string; fromHeight: number };
  /** cw721 `contract_info` answer, when the recording shows it. */
  info?: { name: string; symbol: string };
  tokens: Map<string, { uri: string; fromHeight: number }>;
}
export type RecordedContracts = Map<string, RecordedContract>;

interface RecordedTxLike {
  code?: number;
  tx: { body?: { messages?: Array<Record<string, unknown>> } };
  events: Array<{ type: string; attributes?: Array<{ key: string; value?: string }> }>;
}

const attrsOf = (e: RecordedTxLike['events'][number]): Map<string, string> =>
  new Map((e.attributes ?? []).map((a) => [a.key, a.value ?? '']));
const str = (v: unknown): string => (typeof v === 'string' || typeof v === 'number' ? String(v) : '');

function cw721InitInfo(msg: unknown): RecordedContract['info'] {
  const m = msg as { name?: unknown; symbol?: unknown } | null;
  return typeof m?.name === 'string' && typeof m.symbol === 'string'
    ? { name: m.name, symbol: m.symbol }
    : undefined;
}

export function learnRecordedContracts(out: RecordedContracts, rec: RecordedTxLike, height: number): void {
  if ((rec.code ?? 0) !== 0) return;
  const messages = rec.tx.body?.messages ?? [];
  const entry = (address: string): RecordedContract => {
    const found = out.get(address) ?? { tokens: new Map() };
    out.set(address, found);
    return found;
  };
  for (const e of rec.events) {
    const a = attrsOf(e);
    const address = a.get('_contract_address') ?? '';
    const msg = messages[Number(a.get('msg_index') ?? '0')];
    if (e.type === 'instantiate' && address && /MsgInstantiateContract2?$/.test(str(msg?.['@type']))) {
      const c = entry(address);
      c.meta = {
        codeId: a.get('code_id') ?? str(msg!.code_id),
        creator: str(msg!.sender),
        admin: str(msg!.admin),
        label: str(msg!.label),
        fromHeight: height,
      };
      const info = cw721InitInfo(msg!.msg);
      if (info) c.info = info;
    }
    const nftContract = a.get('nft_contract');
    if (e.type === 'wasm' && a.get('is_redemption') === 'true' && nftContract) {
      const data = redeemedClassData(rec.events);
      if (data) Object.assign(entry(nftContract), data);
    }
    if (e.type === 'wasm' && a.get('action') === 'mint' && msg?.contract === address) {
      const mint = (msg.msg as { mint?: { token_id?: unknown; token_uri?: unknown } } | undefined)?.mint;
      if (mint && str(mint.token_id) === a.get('token_id'))
        entry(address).tokens.set(str(mint.token_id), { uri: str(mint.token_uri), fromHeight: height });
    }
  }
}

/** The cw721 collection data (ics721 `classData`) of the tx's received packet, if it has one. */
function redeemedClassData(
  events: RecordedTxLike['events'],
): Pick<RecordedContract, 'meta' | 'info'> | undefined {
  for (const e of events) {
    if (e.type !== 'recv_packet') continue;
    try {
      const packet = JSON.parse(attrsOf(e).get('packet_data') ?? '') as { classData?: unknown };
      const data = JSON.parse(Buffer.from(str(packet.classData), 'base64').toString('utf8')) as {
        name?: unknown;
        symbol?: unknown;
        contract_info?: { code_id?: unknown; creator?: unknown; admin?: unknown };
      };
      const ci = data.contract_info;
      if (!ci || typeof ci !== 'object') continue;
      const info = cw721InitInfo(data);
      const meta = {
        codeId: str(ci.code_id),
        creator: str(ci.creator),
        admin: str(ci.admin),
        label: '',
        fromHeight: 1,
      };
      return info ? { meta, info } : { meta };
    } catch {
      continue; // not ICS-721 JSON: it reveals nothing
    }
  }
  return undefined;
}

const CONTRACT_PATH = /^\/cosmwasm\/wasm\/v1\/contract\/([a-z0-9]+)(?:\/smart\/([A-Za-z0-9+/=_-]+))?$/;

/** Answers for recorded contracts; undefined (the generated chain answers) for anything else. */
export function createRecordedContractRest(
  contracts: RecordedContracts,
  head: () => number,
): (req: SimHttpRequest) => RestAnswer | undefined {
  return (req) => {
    const m = CONTRACT_PATH.exec(req.path);
    const known = m ? contracts.get(m[1]!) : undefined;
    if (!m || !known) return undefined;
    const h = queryHeight({ head }, req);
    if (typeof h !== 'number') return h;
    if (m[2] === undefined) {
      if (!known.meta || h < known.meta.fromHeight) return undefined;
      const { codeId, creator, admin, label } = known.meta;
      const contract_info = {
        code_id: codeId,
        creator,
        admin,
        label,
        created: null,
        ibc_port_id: '',
        extension: null,
      };
      return ok(JSON.stringify({ address: m[1], contract_info }));
    }
    let query: { contract_info?: unknown; nft_info?: { token_id?: unknown } };
    try {
      query = JSON.parse(Buffer.from(m[2], 'base64').toString('utf8')) as typeof query;
    } catch {
      return undefined;
    }
    if (query?.contract_info !== undefined && known.info && h >= (known.meta?.fromHeight ?? 1))
      return ok(JSON.stringify({ data: known.info }));
    const token = known.tokens.get(str(query?.nft_info?.token_id));
    if (query?.nft_info !== undefined && token && h >= token.fromHeight)
      return ok(JSON.stringify({ data: { token_uri: token.uri, extension: null } }));
    return undefined;
  };
}

/**
 * ERC721 contracts minievm creates for IBC classes, as the recordings show them: minievm deploys
 * its ics721 ERC721 with `name = symbol = class id`, emitting `contract_created` (the address) and
 * then `erc721_created` (the class id; its `contract` attribute holds the runtime code, not the
 * address), and mints each received token with the packet's uri (`erc721_minted` names the
 * contract, the EVM token id and the origin id the packet's `tokenIds` / `tokenUris` pair up).
 */
export interface RecordedErc721 {
  name: string;
  fromHeight: number;
  /** Decimal token id → uri. */
  tokens: Map<string, string>;
}
export type RecordedErc721s = Map<string, RecordedErc721>;

export function learnRecordedErc721s(out: RecordedErc721s, rec: RecordedTxLike, height: number): void {
  if ((rec.code ?? 0) !== 0) return;
  let lastCreated = '';
  const uris = new Map<string, string>(); // packet token id → uri
  for (const e of rec.events) {
    const a = attrsOf(e);
    if (e.type === 'recv_packet') {
      for (const [id, uri] of packetTokenUris(a.get('packet_data') ?? '')) uris.set(id, uri);
    } else if (e.type === 'contract_created') {
      lastCreated = (a.get('contract') ?? '').toLowerCase();
    } else if (e.type === 'erc721_created' && lastCreated && a.has('class_id')) {
      out.set(lastCreated, { name: a.get('class_id')!, fromHeight: height, tokens: new Map() });
    } else if (e.type === 'erc721_minted') {
      const known = out.get((a.get('contract') ?? '').toLowerCase());
      const uri = uris.get(a.get('token_origin_id') ?? '');
      if (known && uri !== undefined && a.has('token_id')) known.tokens.set(a.get('token_id')!, uri);
    }
  }
}

function packetTokenUris(packetData: string): Array<[string, string]> {
  try {
    const p = JSON.parse(packetData) as { tokenIds?: unknown; tokenUris?: unknown };
    if (!Array.isArray(p.tokenIds) || !Array.isArray(p.tokenUris)) return [];
    return p.tokenIds.map((id, i) => [str(id), str((p.tokenUris as unknown[])[i])]);
  } catch {
    return []; // not ICS-721 JSON
  }
}

/** `POST /minievm/evm/v1/call` of `name()` / `tokenURI(id)` on recorded ERC721s. */
export function createRecordedErc721Rest(
  contracts: RecordedErc721s,
  head: () => number,
): (req: SimHttpRequest) => RestAnswer | undefined {
  return (req) => {
    if (req.path !== '/minievm/evm/v1/call' || req.method !== 'POST') return undefined;
    const body = (req.body ?? {}) as { contract_addr?: unknown; input?: unknown };
    const known = contracts.get(str(body.contract_addr).toLowerCase());
    const h = queryHeight({ head }, req);
    if (!known || typeof h !== 'number' || h < known.fromHeight) return undefined;
    const input = str(body.input).toLowerCase();
    let text: string | undefined;
    if (input === SELECTOR.name) text = known.name;
    else if (input.startsWith(SELECTOR.tokenURI) && input.length === 74)
      text = known.tokens.get(BigInt('0x' + input.slice(10)).toString());
    if (text === undefined) return undefined;
    return ok(
      JSON.stringify({ response: abiString(text), used_gas: '21000', logs: [], trace_output: '', error: '' }),
    );
  };
}
