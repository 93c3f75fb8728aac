import { TxRaw } from '@initia/initia.proto/cosmos/tx/v1beta1/tx.js';
import type { SimHttpRequest, SimHttpResponse, SimRpcResult } from '../types.js';
import type { VipChain, TxRecord } from './chain.js';
import { moveAddress } from './exec-move.js';
import { parseJsonWithBigInts, stringifyWithBigInts } from './json.js';
import type { ExtensionResponse, ServedExtension } from './server.js';
import { TxReject } from './tx-decode.js';

/** gRPC-gateway error body. */
const grpcError = (status: number, code: number, message: string): SimHttpResponse => ({
  status,
  body: { code, message, details: [] },
});

function txResponse(r: TxRecord) {
  return {
    height: String(r.height),
    txhash: r.hash,
    codespace: r.codespace,
    code: r.code,
    data: '',
    raw_log: r.log,
    logs: [],
    info: '',
    gas_wanted: String(r.gasWanted),
    gas_used: String(r.gasUsed),
    tx: null,
    timestamp: r.time,
    events: r.events,
  };
}

function broadcastFields(r: { code: number; codespace: string; log: string; txhash: string }) {
  return {
    txhash: r.txhash,
    codespace: r.codespace,
    code: r.code,
    raw_log: r.log,
    data: '',
    logs: [],
    info: '',
  };
}

function txBytesOf(body: unknown): Uint8Array | undefined {
  const b = body as { tx_bytes?: unknown } | undefined;
  return typeof b?.tx_bytes === 'string' ? Buffer.from(b.tx_bytes, 'base64') : undefined;
}

type Route = (chain: VipChain, req: SimHttpRequest) => SimHttpResponse | undefined;

function broadcastRoute(chain: VipChain, req: SimHttpRequest): SimHttpResponse | undefined {
  if (req.method !== 'POST' || req.path !== '/cosmos/tx/v1beta1/txs') return undefined;
  const bytes = txBytesOf(req.body);
  if (!bytes) return grpcError(400, 3, 'tx_bytes is required');
  return {
    status: 200,
    body: {
      tx_response: {
        ...broadcastFields(chain.broadcastSync(bytes)),
        height: '0',
        gas_wanted: '0',
        gas_used: '0',
        events: [],
      },
    },
  };
}

function simulateRoute(chain: VipChain, req: SimHttpRequest): SimHttpResponse | undefined {
  if (req.method !== 'POST' || req.path !== '/cosmos/tx/v1beta1/simulate') return undefined;
  const bytes = txBytesOf(req.body);
  if (!bytes) return grpcError(400, 3, 'tx_bytes is required');
  try {
    const out = chain.simulate(bytes);
    return {
      status: 200,
      body: {
        gas_info: { gas_wanted: '0', gas_used: String(out.gasUsed) },
        result: { data: '', log: '', events: out.events, msg_responses: [] },
      },
    };
  } catch (err) {
    if (err instanceof TxReject) return grpcError(500, 2, err.message);
    throw err;
  }
}

function txByHashRoute(chain: VipChain, req: SimHttpRequest): SimHttpResponse | undefined {
  const txMatch = /^\/cosmos\/tx\/v1beta1\/txs\/([0-9A-Fa-f]{64})$/.exec(req.path);
  if (req.method !== 'GET' || !txMatch?.[1]) return undefined;
  const r = chain.tx(txMatch[1]);
  if (!r) return grpcError(404, 5, `tx not found: ${txMatch[1].toUpperCase()}`);
  const raw = TxRaw.decode(r.raw);
  return {
    status: 200,
    body: {
      tx: { signatures: raw.signatures.map((s) => Buffer.from(s).toString('base64')) },
      tx_response: txResponse(r),
    },
  };
}

function accountRoute(chain: VipChain, req: SimHttpRequest): SimHttpResponse | undefined {
  const acc = /^\/cosmos\/auth\/v1beta1\/accounts\/([^/]+)$/.exec(req.path);
  if (req.method !== 'GET' || !acc?.[1]) return undefined;
  let a;
  try {
    a = chain.account(acc[1]);
  } catch {
    return grpcError(400, 3, `invalid address ${acc[1]}`);
  }
  if (!a) return grpcError(404, 5, `account ${acc[1]} not found`);
  return {
    status: 200,
    body: {
      account: {
        '@type': '/cosmos.auth.v1beta1.BaseAccount',
        address: acc[1],
        pub_key: a.pubKey
          ? {
              '@type':
                a.algo === 'secp256k1'
                  ? '/cosmos.crypto.secp256k1.PubKey'
                  : '/initia.crypto.v1beta1.ethsecp256k1.PubKey',
              key: Buffer.from(a.pubKey).toString('base64'),
            }
          : null,
        account_number: String(a.accountNumber),
        sequence: String(a.sequence),
      },
    },
  };
}

function opchildParamsRoute(chain: VipChain, req: SimHttpRequest): SimHttpResponse | undefined {
  if (req.method !== 'GET' || req.path !== '/opinit/opchild/v1/params') return undefined;
  const g = chain.minGasPrice;
  return {
    status: 200,
    body: { params: { min_gas_prices: [{ denom: g.denom, amount: g.amount.toFixed(18) }] } },
  };
}

function safeMoveAddress(chain: VipChain, text: string): string | undefined {
  try {
    return moveAddress(text, chain.options.prefix);
  } catch {
    return undefined;
  }
}

function moveResourceRoute(chain: VipChain, req: SimHttpRequest): SimHttpResponse | undefined {
  const res = /^\/initia\/move\/v1\/accounts\/([^/]+)\/resources\/by_struct_tag$/.exec(req.path);
  if (req.method !== 'GET' || !res?.[1]) return undefined;
  const addr = safeMoveAddress(chain, res[1]);
  const tag = req.query.get('struct_tag') ?? '';
  if (chain.l1 && addr === chain.l1.packageAddress && tag === `${addr}::vip::ModuleStore`) {
    return { status: 200, body: { resource: chain.l1.resource(chain.now()) } };
  }
  const m = addr ? chain.moveModules.get(addr) : undefined;
  if (!m || tag !== `${addr}::vip_score::ModuleStore`) return grpcError(404, 5, `resource ${tag} not found`);
  return {
    status: 200,
    body: {
      resource: {
        address: addr,
        struct_tag: tag,
        move_resource: JSON.stringify(m.moduleStoreJson()),
        raw_bytes: '',
      },
    },
  };
}

function moveTableEntryRoute(chain: VipChain, req: SimHttpRequest): SimHttpResponse | undefined {
  const table = /^\/initia\/move\/v1\/tables\/([^/]+)\/entries\/by_key_bytes$/.exec(req.path);
  if (req.method !== 'GET' || !table?.[1]) return undefined;
  const m = [...chain.moveModules.values()].find((x) => x.scoresHandle === table[1]);
  const keyBytes = Buffer.from(req.query.get('key_bytes') ?? '', 'base64');
  const stage = keyBytes.length === 8 ? m?.stages.get(keyBytes.readBigUInt64LE()) : undefined;
  if (!m || !stage) return grpcError(404, 5, 'collections: not found');
  const value = JSON.stringify({
    is_finalized: stage.isFinalized,
    score: { handle: `${m.scoresHandle}00`, length: String(stage.scores.size) },
    total_score: String(stage.totalScore),
  });
  return {
    status: 200,
    body: {
      table_entry: { address: table[1], key_bytes: keyBytes.toString('base64'), value, value_bytes: '' },
    },
  };
}

function moveViewRoute(chain: VipChain, req: SimHttpRequest): SimHttpResponse | undefined {
  const view = /^\/initia\/move\/v1\/accounts\/([^/]+)\/modules\/vip_score\/view_functions\/([a-z_]+)$/.exec(
    req.path,
  );
  if (req.method === 'POST' && view?.[1] && view[2]) return moveView(chain, view[1], view[2], req.body);
  return undefined;
}

function moveView(chain: VipChain, address: string, fn: string, body: unknown): SimHttpResponse {
  const m = chain.moveModules.get(safeMoveAddress(chain, address) ?? '');
  if (!m) return grpcError(500, 2, `LINKER_ERROR: module ${address}::vip_score not found`);
  const args = ((body as { args?: string[] })?.args ?? []).map((a) => Buffer.from(a, 'base64'));
  const hex = (b: Buffer | undefined) => `0x${(b ?? Buffer.alloc(32)).toString('hex')}`;
  const u64 = (b: Buffer | undefined) => (b && b.length === 8 ? b.readBigUInt64LE() : 0n);
  let data: unknown;
  if (fn === 'get_score') data = String(m.getScore(hex(args[0]), u64(args[1])));
  else if (fn === 'get_total_score') data = String(m.getTotalScore(u64(args[0])));
  else if (fn === 'get_scores') {
    const opt = args[2];
    const after = opt && opt[0] === 1 ? hex(opt.subarray(1)) : undefined;
    data = m.getScores(u64(args[0]), args[1]?.readUInt16LE() ?? 0, after);
  } else return grpcError(500, 2, `FUNCTION_RESOLUTION_FAILURE: ${fn} is not a view function`);
  return { status: 200, body: { data: JSON.stringify(data), events: [], gas_used: '1000' } };
}

function wasmRoutes(chain: VipChain, req: SimHttpRequest): SimHttpResponse | undefined {
  const smart = /^\/cosmwasm\/wasm\/v1\/contract\/([^/]+)\/smart\/([^/]+)$/.exec(req.path);
  if (req.method === 'GET' && smart?.[1] && smart[2]) {
    const c = chain.wasmContract(smart[1]);
    if (!c) return grpcError(404, 5, `no such contract: ${smart[1]}`);
    try {
      const q = parseJsonWithBigInts(Buffer.from(decodeURIComponent(smart[2]), 'base64').toString('utf8'));
      const data = c.model.query(q as Record<string, unknown>);
      return {
        status: 200,
        body: `{"data":${stringifyWithBigInts(data)}}`,
        headers: { 'content-type': 'application/json' },
      };
    } catch (err) {
      return grpcError(500, 2, `Generic error: ${(err as Error).message}: query wasm contract failed`);
    }
  }
  const raw = /^\/cosmwasm\/wasm\/v1\/contract\/([^/]+)\/raw\/([^/]+)$/.exec(req.path);
  if (req.method === 'GET' && raw?.[1] && raw[2]) {
    const c = chain.wasmContract(raw[1]);
    if (!c) return grpcError(404, 5, `no such contract: ${raw[1]}`);
    const v = c.model.raw(Buffer.from(decodeURIComponent(raw[2]), 'base64').toString('utf8'));
    return { status: 200, body: { data: v === undefined ? null : Buffer.from(v).toString('base64') } };
  }
  return undefined;
}

/** Every REST route, in the order they are tried. */
const REST_ROUTES: Route[] = [
  broadcastRoute,
  simulateRoute,
  txByHashRoute,
  accountRoute,
  opchildParamsRoute,
  moveResourceRoute,
  moveTableEntryRoute,
  moveViewRoute,
  wasmRoutes,
];

function restRoute(chain: VipChain, req: SimHttpRequest): SimHttpResponse | undefined {
  for (const route of REST_ROUTES) {
    const out = route(chain, req);
    if (out) return out;
  }
  return undefined;
}

function abciInfo(chain: VipChain): SimRpcResult {
  const data =
    chain.options.vm === 'move' ? 'minimove' : chain.options.vm === 'wasm' ? 'miniwasm' : 'minievm';
  return {
    result: {
      response: {
        data,
        version: chain.options.version ?? 'v1.0.2',
        last_block_height: String(chain.height()),
        last_block_app_hash: Buffer.alloc(32, chain.height() % 256).toString('base64'),
      },
    },
  };
}

/** Cosmos REST, Move and Wasm query routes of the VIP chain model, as a simulator extension. */
export function createVipExtension(chain: VipChain): ServedExtension {
  return {
    rest(req): ExtensionResponse | undefined {
      // Fault: the broadcast runs (the tx is accepted) but its HTTP answer never arrives.
      const drop =
        req.method === 'POST' &&
        req.path === '/cosmos/tx/v1beta1/txs' &&
        chain.faults.failNextBroadcastResponse === true;
      if (drop) delete chain.faults.failNextBroadcastResponse;
      const out = restRoute(chain, req);
      return drop && out ? { ...out, reset: true } : out;
    },
    rpc(method, params): SimRpcResult | undefined {
      if (method === 'broadcast_tx_sync' && typeof params.tx === 'string') {
        // CometBFT JSON-RPC carries the tx as base64 (POST) or 0x hex (GET URI).
        const text = params.tx.replace(/^"(.*)"$/, '$1');
        const raw = text.startsWith('0x') ? Buffer.from(text.slice(2), 'hex') : Buffer.from(text, 'base64');
        const r = chain.broadcastSync(raw);
        return { result: { code: r.code, data: '', log: r.log, codespace: r.codespace, hash: r.txhash } };
      }
      if (method === 'abci_info') return abciInfo(chain);
      return undefined;
    },
  };
}
