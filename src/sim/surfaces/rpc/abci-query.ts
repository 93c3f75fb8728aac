import { QueryViewRequest, QueryViewResponse } from '@initia/initia.proto/initia/move/v1/query.js';
import { BaseAccount } from 'cosmjs-types/cosmos/auth/v1beta1/auth';
import { QueryAccountRequest, QueryAccountResponse } from 'cosmjs-types/cosmos/auth/v1beta1/query';
import {
  QueryAllBalancesRequest,
  QueryAllBalancesResponse,
  QueryBalanceRequest,
  QueryBalanceResponse,
} from 'cosmjs-types/cosmos/bank/v1beta1/query';
import { GetNodeInfoResponse } from 'cosmjs-types/cosmos/base/tendermint/v1beta1/query';
import { PubKey } from 'cosmjs-types/cosmos/crypto/secp256k1/keys';
import {
  QuerySmartContractStateRequest,
  QuerySmartContractStateResponse,
} from 'cosmjs-types/cosmwasm/wasm/v1/query';
import type { Outcome } from '../jsonrpc.js';
import type { ClientRpcContext } from './client-context.js';
import { boolParam, hexParam, intParamOf, isOutcome, stringParam } from './params.js';
import type { SimHttpRequest } from '../../types.js';

/**
 * abci_query for the gRPC paths clients send (cosmjs QueryClient, SubQuery): each is answered by
 * the simulator's own REST route for the same query (one state logic), re-encoded as protobuf.
 * Errors follow baseapp: a gRPC status becomes an SDK error (NotFound → 22 "key not found",
 * InvalidArgument → 18 "invalid request"), with the "rpc error: code = … desc = …" log clients
 * match on (cosmjs getAccount returns null on NotFound).
 */
interface RestCall {
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
  /** Protobuf answer from the REST JSON. */
  encode(json: Record<string, unknown>): Uint8Array;
}

type Route = (data: Uint8Array) => RestCall;

interface RestAccount {
  address: string;
  pub_key: { '@type': string; key: string } | null;
  account_number: string;
  sequence: string;
}

/** Gateway JSON (snake_case) → the proto3 JSON names ts-proto's fromJSON reads. */
function camelKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(camelKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      k.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase()),
      camelKeys(v),
    ]),
  );
}

const ROUTES: Record<string, Route> = {
  '/cosmos.base.tendermint.v1beta1.Service/GetNodeInfo': () => ({
    method: 'GET',
    path: '/cosmos/base/tendermint/v1beta1/node_info',
    encode: (json) => GetNodeInfoResponse.encode(GetNodeInfoResponse.fromJSON(camelKeys(json))).finish(),
  }),
  '/cosmos.auth.v1beta1.Query/Account': (data) => ({
    method: 'GET',
    path: `/cosmos/auth/v1beta1/accounts/${QueryAccountRequest.decode(data).address}`,
    encode: (json) => {
      const a = json.account as RestAccount;
      const account = BaseAccount.encode({
        address: a.address,
        ...(a.pub_key
          ? {
              pubKey: {
                typeUrl: a.pub_key['@type'],
                value: PubKey.encode({ key: Buffer.from(a.pub_key.key, 'base64') }).finish(),
              },
            }
          : {}),
        accountNumber: BigInt(a.account_number),
        sequence: BigInt(a.sequence),
      }).finish();
      return QueryAccountResponse.encode({
        account: { typeUrl: '/cosmos.auth.v1beta1.BaseAccount', value: account },
      }).finish();
    },
  }),
  '/cosmos.bank.v1beta1.Query/Balance': (data) => {
    const req = QueryBalanceRequest.decode(data);
    return {
      method: 'GET',
      path: `/cosmos/bank/v1beta1/balances/${req.address}`,
      encode: (json) => {
        const held = (json.balances as Array<{ denom: string; amount: string }>).find(
          (b) => b.denom === req.denom,
        );
        return QueryBalanceResponse.encode({
          balance: { denom: req.denom, amount: held?.amount ?? '0' },
        }).finish();
      },
    };
  },
  '/cosmos.bank.v1beta1.Query/AllBalances': (data) => ({
    method: 'GET',
    path: `/cosmos/bank/v1beta1/balances/${QueryAllBalancesRequest.decode(data).address}`,
    encode: (json) => {
      const balances = json.balances as Array<{ denom: string; amount: string }>;
      return QueryAllBalancesResponse.encode({
        balances,
        pagination: { nextKey: new Uint8Array(0), total: BigInt(balances.length) },
      }).finish();
    },
  }),
  '/cosmwasm.wasm.v1.Query/SmartContractState': (data) => {
    const req = QuerySmartContractStateRequest.decode(data);
    // The path is handed to the routes in-process, so base64 is not percent-encoded.
    const query = Buffer.from(req.queryData).toString('base64');
    return {
      method: 'GET',
      path: `/cosmwasm/wasm/v1/contract/${req.address}/smart/${query}`,
      encode: (json) =>
        QuerySmartContractStateResponse.encode({ data: Buffer.from(JSON.stringify(json.data)) }).finish(),
    };
  },
  '/initia.move.v1.Query/View': (data) => {
    const req = QueryViewRequest.decode(data);
    return {
      method: 'POST',
      path: `/initia/move/v1/accounts/${req.address}/modules/${req.moduleName}/view_functions/${req.functionName}`,
      body: { type_args: req.typeArgs, args: req.args.map((a) => Buffer.from(a).toString('base64')) },
      encode: (json) =>
        QueryViewResponse.encode({
          data: String(json.data),
          events: [],
          gasUsed: BigInt(String(json.gas_used ?? '0')),
        }).finish(),
    };
  },
};

const GRPC_NAMES: Record<number, string> = {
  2: 'Unknown',
  3: 'InvalidArgument',
  5: 'NotFound',
  12: 'Unimplemented',
  13: 'Internal',
  16: 'Unauthenticated',
};
/** baseapp gRPCErrorToSDKError: gRPC code → SDK code and its text. */
const SDK_ERRORS: Record<number, [number, string]> = {
  3: [18, 'invalid request'],
  5: [22, 'key not found'],
  9: [18, 'invalid request'],
  16: [4, 'unauthorized'],
};

function response(fields: { code?: number; log?: string; value?: Uint8Array; height?: number }): Outcome {
  // ResponseQuery is cmtjson with omitempty on every field.
  const parts: string[] = [];
  if (fields.code) parts.push(`"code":${fields.code}`);
  if (fields.log) parts.push(`"log":${JSON.stringify(fields.log)}`);
  if (fields.value && fields.value.length > 0)
    parts.push(`"value":"${Buffer.from(fields.value).toString('base64')}"`);
  if (fields.height) parts.push(`"height":"${fields.height}"`);
  if (fields.code) parts.push('"codespace":"sdk"');
  return { result: `{"response":{${parts.join(',')}}}` };
}

export async function abciQuery(ctx: ClientRpcContext, params: Record<string, unknown>): Promise<Outcome> {
  const path = stringParam(params.path);
  const data = hexParam(params.data ?? '', 'data');
  if (isOutcome(data)) return data;
  const asked = intParamOf(params.height, 'height');
  if (isOutcome(asked)) return asked;
  const prove = boolParam(params.prove, 'prove');
  if (isOutcome(prove)) return prove;
  const head = ctx.head();
  if (asked !== undefined && asked < 0)
    return response({
      code: 26,
      log: 'cannot query with height < 0; please provide a valid height: invalid height',
    });
  if (asked !== undefined && asked > head) {
    return response({
      code: 26,
      log: 'cannot query with height in the future; please provide a valid height: invalid height',
    });
  }
  const height = asked === undefined || asked === 0 ? head : asked;
  const route = ROUTES[path];
  if (!route) return response({ code: 6, log: 'unknown query path: unknown request' });
  let call: RestCall;
  try {
    call = route(data);
  } catch (err) {
    return response({ code: 18, log: `${(err as Error).message}: invalid request` });
  }
  const req: SimHttpRequest = {
    method: call.method,
    path: call.path,
    query: new URLSearchParams(),
    headers: { 'x-cosmos-block-height': String(height) },
    body: call.body,
  };
  const answer = await ctx.rest(req);
  const text = typeof answer.body === 'string' ? answer.body : answer.body.toString('utf8');
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    json = { code: 2, message: text };
  }
  if (answer.status !== 200) {
    const grpc = Number(json.code ?? 2);
    const [code, sdkText] = SDK_ERRORS[grpc] ?? [6, 'unknown request'];
    const log = `rpc error: code = ${GRPC_NAMES[grpc] ?? 'Unknown'} desc = ${String(json.message)}: ${sdkText}`;
    return response({ code, log });
  }
  return response({ value: call.encode(json), height });
}
