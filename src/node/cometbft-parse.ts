import { AppError } from '../shared/errors.js';
import type { AbciEvent, RawBlock, TxResult } from './types.js';

/**
 * Validation of CometBFT 0.38 `/block` and `/block_results` results (docs/node-data.md §1.1–1.2).
 * omitempty fields default; anything the indexer relies on that is missing or mistyped stops the
 * pipeline with a message naming the height and the field (a malformed block is never half-written).
 */
export function parseBlockBundle(height: number, blockResult: unknown, resultsResult: unknown): RawBlock {
  const at = (field: string) => `height ${height}: ${field}`;
  const block = obj(blockResult, at('block result'));
  const blockId = obj(block.block_id, at('block_id'));
  const inner = obj(block.block, at('block'));
  const header = obj(inner.header, at('block.header'));
  const data = obj(inner.data, at('block.data'));
  const headerHeight = Number(str(header.height, at('block.header.height')));
  if (headerHeight !== height) throw malformed(at(`block.header.height is ${headerHeight}`));
  const txs = data.txs === undefined || data.txs === null ? [] : arr(data.txs, at('block.data.txs'));
  const time = str(header.time, at('block.header.time'));
  if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?Z$/.test(time)) throw malformed(at('block.header.time'));

  const results = obj(resultsResult, at('block_results result'));
  const txsResults =
    results.txs_results === undefined || results.txs_results === null
      ? []
      : arr(results.txs_results, at('txs_results'));
  if (txsResults.length !== txs.length) {
    throw malformed(at(`txs_results has ${txsResults.length} entries for ${txs.length} txs`));
  }
  return {
    height,
    chainId: str(header.chain_id, at('block.header.chain_id')),
    hash: str(blockId.hash, at('block_id.hash')).toUpperCase(),
    time,
    proposerAddress: str(header.proposer_address, at('block.header.proposer_address')).toUpperCase(),
    txs: txs.map((t, i) => str(t, at(`block.data.txs[${i}]`))),
    txResults: txsResults.map((r, i) => parseTxResult(r, at(`txs_results[${i}]`))),
    finalizeBlockEvents: parseEvents(results.finalize_block_events, at('finalize_block_events')),
  };
}

function parseTxResult(value: unknown, where: string): TxResult {
  const r = obj(value, where);
  return {
    code: r.code === undefined ? 0 : num(r.code, `${where}.code`),
    codespace: optStr(r.codespace, `${where}.codespace`),
    log: optStr(r.log, `${where}.log`),
    info: optStr(r.info, `${where}.info`),
    data: optStr(r.data, `${where}.data`),
    gasWanted: intStr(r.gas_wanted, `${where}.gas_wanted`),
    gasUsed: intStr(r.gas_used, `${where}.gas_used`),
    events: parseEvents(r.events, `${where}.events`),
  };
}

/**
 * Validates the events in place and returns the same array: the JSON was parsed for this call
 * alone, so normalising its objects (omitempty defaults) instead of copying them spares an object
 * per event and per attribute, the bulk of a block. Fields we do not read are left as served.
 */
export function parseEvents(value: unknown, where: string): AbciEvent[] {
  if (value === undefined || value === null) return [];
  const events = arr(value, where);
  for (let i = 0; i < events.length; i++) {
    const ev = obj(events[i], `${where}[${i}]`);
    str(ev.type, `${where}[${i}].type`);
    if (ev.attributes === undefined || ev.attributes === null) {
      ev.attributes = [];
      continue;
    }
    const attrs = arr(ev.attributes, `${where}[${i}]`);
    for (let j = 0; j < attrs.length; j++) normaliseAttribute(attrs[j], `${where}[${i}].attributes[${j}]`);
  }
  return events as AbciEvent[];
}

function normaliseAttribute(value: unknown, where: string): void {
  const at = obj(value, where) as { key: unknown; value: unknown; index: unknown };
  if (typeof at.key !== 'string') at.key = optStr(at.key, `${where}.key`);
  if (typeof at.value !== 'string') at.value = optStr(at.value, `${where}.value`);
  if (typeof at.index !== 'boolean') at.index = at.index === true;
}

function malformed(message: string): AppError {
  return new AppError('malformed_block', `malformed node response: ${message}`);
}
function obj(value: unknown, where: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw malformed(`${where} is not an object`);
  return value as Record<string, unknown>;
}
function arr(value: unknown, where: string): unknown[] {
  if (!Array.isArray(value)) throw malformed(`${where} is not an array`);
  return value;
}
function str(value: unknown, where: string): string {
  if (typeof value !== 'string') throw malformed(`${where} is missing or not a string`);
  return value;
}
function optStr(value: unknown, where: string): string {
  return value === undefined || value === null ? '' : str(value, where);
}
function num(value: unknown, where: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value)) throw malformed(`${where} is not an integer`);
  return value;
}
function intStr(value: unknown, where: string): string {
  if (value === undefined || value === null) return '0';
  const s = typeof value === 'number' ? String(value) : str(value, where);
  if (!/^-?\d+$/.test(s)) throw malformed(`${where} is not an integer string`);
  return s;
}
