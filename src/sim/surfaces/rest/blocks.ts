import { toBech32 } from '../../../shared/address.js';
import type { Chain, GeneratedBlock } from '../../chain/blocks.js';
import { eventsRestJson } from '../../chain/assemble.js';
import type { GeneratedTx } from '../../chain/assemble.js';

/** A REST answer with its body already serialised. */
export interface RestAnswer {
  status: number;
  body: string;
}

export interface RestContext {
  chain: Chain;
  chainId: string;
  prefix: string;
  head(): number;
  base(): number;
  nodeVersion: string;
  appName: string;
  /** Find a tx by upper-case hex hash (undefined when the simulator has not seen it). */
  findTx(hash: string): { block: GeneratedBlock; tx: GeneratedTx } | undefined;
  /** Fault injection: serve fewer txs than asked on this page. */
  shortPage(height: number): boolean;
  /** A type URL of the tx that this node's codec cannot resolve (sim `upgrade`), if any. */
  unresolvableType(tx: GeneratedTx): string | undefined;
}

const b64 = (hex: string): string => Buffer.from(hex, 'hex').toString('base64');

/** gRPC-gateway error body: HTTP status and gRPC code. */
export function grpcError(status: number, code: number, message: string): RestAnswer {
  return { status, body: JSON.stringify({ code, message, details: [] }) };
}

export function ok(body: string): RestAnswer {
  return { status: 200, body };
}

function blockIdRest(hash: string, partsHash: string, total: number): string {
  return `{"hash":"${b64(hash)}","part_set_header":{"total":${total},"hash":"${b64(partsHash)}"}}`;
}

/** tendermint.types.Block in gateway proto-JSON: bytes as base64, enums by name. */
function blockRest(ctx: RestContext, b: GeneratedBlock, proposer: string): string {
  const h = b.header;
  const lastBlockId =
    h.height > 1 ? blockIdRest(h.lastBlockHash, h.lastPartsHash, 1) : blockIdRest('', '', 0);
  const header =
    `{"version":{"block":"11","app":"0"},"chain_id":"${ctx.chainId}","height":"${h.height}","time":"${h.time}",` +
    `"last_block_id":${lastBlockId},"last_commit_hash":"${b64(h.lastCommitHash)}","data_hash":"${b64(h.dataHash)}",` +
    `"validators_hash":"${b64(h.validatorsHash)}","next_validators_hash":"${b64(h.validatorsHash)}",` +
    `"consensus_hash":"${b64(h.consensusHash)}","app_hash":"${b64(h.appHash)}",` +
    `"last_results_hash":"${b64(h.lastResultsHash)}","evidence_hash":"${b64(h.evidenceHash)}",` +
    `"proposer_address":"${proposer}"}`;
  const signatures =
    h.height > 1
      ? `[{"block_id_flag":"BLOCK_ID_FLAG_COMMIT","validator_address":"${b64(h.proposer)}",` +
        `"timestamp":"${h.commitTime}","signature":"${h.commitSignatureB64}"}]`
      : '[]';
  return (
    `{"header":${header},"data":{"txs":[${b.txs.map((t) => `"${t.base64}"`).join(',')}]},` +
    `"evidence":{"evidence":[]},"last_commit":{"height":"${h.height - 1}","round":0,"block_id":${lastBlockId},` +
    `"signatures":${signatures}}}`
  );
}

function heightParam(ctx: RestContext, text: string): number | RestAnswer {
  if (!/^-?\d+$/.test(text)) {
    return grpcError(
      400,
      3,
      `type mismatch, parameter: height, error: strconv.ParseInt: parsing "${text}": invalid syntax`,
    );
  }
  const h = Number(text);
  if (h > ctx.head()) return grpcError(400, 3, 'requested block height is bigger then the chain length');
  if (h < ctx.base())
    return grpcError(500, 2, `height ${h} is not available, lowest height is ${ctx.base()}`);
  if (h <= 0) return grpcError(400, 3, 'block height must be greater than 0');
  return h;
}

export function handleBlockRoutes(
  ctx: RestContext,
  path: string,
  query: URLSearchParams,
): RestAnswer | undefined {
  const tm = '/cosmos/base/tendermint/v1beta1/';
  if (path === tm + 'node_info') return ok(nodeInfo(ctx));
  const latest = path === tm + 'blocks/latest';
  if (latest || path.startsWith(tm + 'blocks/')) {
    const h = latest ? ctx.head() : heightParam(ctx, path.slice((tm + 'blocks/').length));
    if (typeof h !== 'number') return h;
    const b = ctx.chain.block(h);
    const valcons = toBech32(Buffer.from(b.header.proposer, 'hex'), ctx.prefix + 'valcons');
    return ok(
      `{"block_id":${blockIdRest(b.hash, b.header.partsHash, 1)},"block":${blockRest(ctx, b, b64(b.header.proposer))},` +
        `"sdk_block":${blockRest(ctx, b, valcons)}}`,
    );
  }
  const txsBlock = '/cosmos/tx/v1beta1/txs/block/';
  if (path.startsWith(txsBlock)) return txsOfBlock(ctx, path.slice(txsBlock.length), query);
  const txByHash = '/cosmos/tx/v1beta1/txs/';
  if (path.startsWith(txByHash) && path.length > txByHash.length)
    return txOfHash(ctx, path.slice(txByHash.length));
  return undefined;
}

/**
 * GetBlockWithTxs as SDK 0.50 implements it: offset/limit only (the key is ignored, next_key is
 * always null), limit 0 when pagination is given without a limit, 100 when none is given.
 */
function txsOfBlock(ctx: RestContext, heightText: string, query: URLSearchParams): RestAnswer {
  const h = heightParam(ctx, heightText);
  if (typeof h !== 'number') return h;
  const b = ctx.chain.block(h);
  // GetBlockWithTxs decodes every tx of the block: one it cannot decode fails the whole answer.
  for (const t of b.txs) {
    const refused = unresolvable(ctx, t);
    if (refused) return refused;
  }
  const hasPagination = [...query.keys()].some((k) => k.startsWith('pagination.'));
  const offset = Number(query.get('pagination.offset') ?? '0');
  const limit = hasPagination ? Number(query.get('pagination.limit') ?? '0') : 100;
  if (!Number.isFinite(offset) || !Number.isFinite(limit) || offset < 0 || limit < 0) {
    return grpcError(400, 3, 'invalid pagination parameters');
  }
  const total = b.txs.length;
  if (offset >= total && total !== 0) {
    return grpcError(
      400,
      3,
      `out of range: cannot paginate ${total} txs with offset ${offset} and limit ${limit}: invalid request`,
    );
  }
  let page = b.txs.slice(offset, offset + limit);
  // Fault: the node briefly returns fewer txs than it holds (clients must loop until complete).
  if (page.length > 1 && ctx.shortPage(h)) page = page.slice(0, Math.ceil(page.length / 2));
  const valcons = b64(b.header.proposer);
  return ok(
    `{"txs":[${page.map((t) => t.restTxJson).join(',')}],"block_id":${blockIdRest(b.hash, b.header.partsHash, 1)},` +
      `"block":${blockRest(ctx, b, valcons)},"pagination":{"next_key":null,"total":"${total}"}}`,
  );
}

export function txResponseJson(b: GeneratedBlock, t: GeneratedTx): string {
  const tx = `{"@type":"/cosmos.tx.v1beta1.Tx",${t.restTxJson.slice(1)}`;
  return (
    `{"height":"${b.height}","txhash":"${t.hash}","codespace":"${t.codespace}","code":${t.code},` +
    `"data":"${t.dataHex}","raw_log":${JSON.stringify(t.log)},"logs":[],"info":"",` +
    `"gas_wanted":"${t.gasWanted}","gas_used":"${t.gasUsed}","tx":${tx},"timestamp":"${b.time}",` +
    `"events":${eventsRestJson(t.events)}}`
  );
}

function txOfHash(ctx: RestContext, hashText: string): RestAnswer {
  const hash = hashText.toUpperCase();
  if (!/^[0-9A-F]{64}$/.test(hash)) {
    return grpcError(400, 3, `invalid tx hash ${hashText}: encoding/hex: invalid byte`);
  }
  const found = ctx.findTx(hash);
  if (!found) return grpcError(404, 5, `tx not found: ${hash}`);
  const refused = unresolvable(ctx, found.tx);
  if (refused) return refused;
  return ok(`{"tx":${found.tx.restTxJson},"tx_response":${txResponseJson(found.block, found.tx)}}`);
}

/** An SDK 0.50 node's answer for a tx its codec cannot decode (docs/node-data.md §1.3). */
function unresolvable(ctx: RestContext, tx: GeneratedTx): RestAnswer | undefined {
  const typeUrl = ctx.unresolvableType(tx);
  return typeUrl === undefined
    ? undefined
    : grpcError(500, 13, `unable to resolve type URL ${typeUrl}: tx parse error`);
}

function nodeInfo(ctx: RestContext): string {
  return (
    `{"default_node_info":{"protocol_version":{"p2p":"8","block":"11","app":"0"},"default_node_id":"${'a'.repeat(40)}",` +
    `"listen_addr":"tcp://0.0.0.0:26656","network":"${ctx.chainId}","version":"0.38.17","channels":"QCAhIiMwOGBhAA==",` +
    `"moniker":"rollup-sim","other":{"tx_index":"on","rpc_address":"tcp://0.0.0.0:26657"}},` +
    `"application_version":{"name":"${ctx.appName}","app_name":"${ctx.appName}d","version":"${ctx.nodeVersion}",` +
    `"git_commit":"0000000000000000000000000000000000000000","build_tags":"netgo,ledger","go_version":"go version go1.23.6 linux/amd64",` +
    `"build_deps":[],"cosmos_sdk_version":"v0.50.13"}}`
  );
}
