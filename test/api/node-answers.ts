import { createHash } from 'node:crypto';
import { bech32 } from 'bech32';
import type { SimulatorUrls } from '../../src/sim/types.js';

/**
 * What the block and tx routes must answer, built from the node's own answers (the simulator's
 * CometBFT RPC and Cosmos REST) and the route contract of docs/api.md §4.2 and §5.2 — never from
 * the indexer's rows. Every place the API differs from the node on purpose is a named, commented
 * normalisation below; nothing is left out by comparing subsets.
 */

export type Json = Record<string, unknown>;

/** docs/api.md §4.2 block object, in order. */
export const BLOCK_KEYS = [
  'chain_id',
  'height',
  'hash',
  'block_time',
  'timestamp',
  'gas_used',
  'gas_wanted',
  'tx_count',
  'total_fee',
  'proposer',
];

/** docs/api.md §5.2 Tx object, in order. */
export const TX_KEYS = [
  'txhash',
  'height',
  'codespace',
  'code',
  'data',
  'raw_log',
  'logs',
  'info',
  'gas_wanted',
  'gas_used',
  'tx',
  'timestamp',
  'events',
];

async function getJson(url: string): Promise<Json> {
  const res = await fetch(url);
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${url}: HTTP ${res.status} ${text.slice(0, 200)}`);
  return JSON.parse(text) as Json;
}

/** CometBFT URI call: the `result` member. */
async function rpc(urls: SimulatorUrls, method: string, query: string): Promise<Json> {
  return (await getJson(`${urls.rpc}/${method}?${query}`)).result as Json;
}

/** RFC 3339 with up to 9 fraction digits → nanoseconds (Date keeps only milliseconds). */
function nanos(time: string): bigint {
  const fraction = /\.(\d+)Z$/.exec(time)?.[1] ?? '';
  const seconds = Date.parse(time.replace(/\.\d+Z$/, 'Z'));
  return BigInt(seconds) * 1_000_000n + BigInt(fraction.padEnd(9, '0'));
}

/** Fee coins summed per denom, sorted by denom, zero sums left out (docs/api.md §4.2 total_fee). */
function sumFees(
  fees: Array<Array<{ denom: string; amount: string }>>,
): Array<{ denom: string; amount: string }> {
  const sums = new Map<string, bigint>();
  for (const coin of fees.flat()) sums.set(coin.denom, (sums.get(coin.denom) ?? 0n) + BigInt(coin.amount));
  return [...sums]
    .filter(([, amount]) => amount !== 0n)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([denom, amount]) => ({ denom, amount: amount.toString() }));
}

export interface NodeBlock {
  /** The block route's whole JSON. */
  json: Json;
  /** Upper-case hex sha256 of each raw tx, in block order. */
  txHashes: string[];
}

/**
 * The block route's JSON for `height` (docs/api.md §4.2): header fields from `/block`, gas sums from
 * `/block_results`, block_time from the previous header, total_fee from the txs' REST form, and
 * the proposer: its consensus address (checked to be in `/validators`) rendered as a valoper, then
 * that validator's moniker and operator address from REST opchild.
 */
export async function nodeBlock(urls: SimulatorUrls, height: number, prefix = 'init'): Promise<NodeBlock> {
  const block = await rpc(urls, 'block', `height=${height}`);
  const header = (block.block as { header: Json }).header as {
    chain_id: string;
    time: string;
    proposer_address: string;
  };
  const rawTxs = ((block.block as { data: { txs: string[] | null } }).data.txs ?? []) as string[];
  const txHashes = rawTxs.map((b64) =>
    createHash('sha256').update(Buffer.from(b64, 'base64')).digest('hex').toUpperCase(),
  );
  const results = await rpc(urls, 'block_results', `height=${height}`);
  const txResults = ((results.txs_results ?? []) as Array<{ gas_used: string; gas_wanted: string }>).slice(
    0,
    rawTxs.length,
  );
  const sum = (key: 'gas_used' | 'gas_wanted') =>
    txResults.reduce((n, r) => n + BigInt(r[key]), 0n).toString();
  const previous =
    height > 1
      ? ((await rpc(urls, 'block', `height=${height - 1}`)).block as { header: { time: string } }).header.time
      : undefined;
  const validators = (await rpc(urls, 'validators', `height=${height}`)).validators as Array<{
    address: string;
  }>;
  if (!validators.some((v) => v.address === header.proposer_address))
    throw new Error(`block ${height}: proposer ${header.proposer_address} is not in /validators`);
  const valoper = bech32.encode(
    `${prefix}valoper`,
    bech32.toWords(Buffer.from(header.proposer_address, 'hex')),
  );
  const validator = (await getJson(`${urls.rest}/opinit/opchild/v1/validator/${valoper}`)).validator as {
    moniker: string;
    operator_address: string;
  };
  const fees = await Promise.all(
    txHashes.map(async (hash) => {
      const response = (await getJson(`${urls.rest}/cosmos/tx/v1beta1/txs/${hash}`)).tx_response as {
        tx: { auth_info: { fee: { amount: Array<{ denom: string; amount: string }> } } };
      };
      return response.tx.auth_info.fee.amount;
    }),
  );
  const json: Json = {
    chain_id: header.chain_id,
    height: String(height),
    hash: (block.block_id as { hash: string }).hash,
    // Milliseconds since the previous header, truncated like Go's Duration.Milliseconds; "0" first.
    block_time:
      previous === undefined ? '0' : ((nanos(header.time) - nanos(previous)) / 1_000_000n).toString(),
    // The route renders whole seconds on purpose (docs/api.md §4.2).
    timestamp: header.time.replace(/\.\d+Z$/, 'Z'),
    gas_used: sum('gas_used'),
    gas_wanted: sum('gas_wanted'),
    tx_count: String(rawTxs.length),
    total_fee: sumFees(fees),
    // identity is always "" (docs/api.md §4.2; the node has none to give).
    proposer: { moniker: validator.moniker, identity: '', operator_address: validator.operator_address },
  };
  return { json, txHashes };
}

/**
 * The tx route's JSON (docs/api.md §5.2): the node's REST `tx_response` for `hash`, whole, with the
 * API's documented differences applied.
 */
export async function nodeTx(urls: SimulatorUrls, hash: string): Promise<Json> {
  const response = (await getJson(`${urls.rest}/cosmos/tx/v1beta1/txs/${hash}`)).tx_response as Json;
  const { ['@type']: anyType, ...tx } = response.tx as Json;
  // The REST answer wraps the tx in an Any; the API's tx has only body, auth_info and signatures.
  if (anyType !== '/cosmos.tx.v1beta1.Tx') throw new Error(`tx ${hash}: unexpected @type ${String(anyType)}`);
  const events = (response.events as Array<{ type: string; attributes?: Json[] }>).map(apiEvent);
  return Object.fromEntries(TX_KEYS.map((k) => [k, k === 'tx' ? tx : k === 'events' ? events : response[k]]));
}

/**
 * docs/api.md §5.2 keeps one omit-empty habit of the reference's events: `index` is left out when
 * false. `value` ("" when empty, docs/api.md §0.8) and `attributes` (`[]` when none) are kept as REST
 * writes them (docs/api.md, "Where this API differs from the reference").
 */
function apiEvent(event: { type: string; attributes?: Json[] }): Json {
  const attributes = (event.attributes ?? []).map((a) => {
    const { index, ...rest } = a;
    return index === false ? rest : a;
  });
  return { ...event, attributes };
}
