import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { toBech32 } from '../../shared/address.js';
import { InputError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import { createProtoRegistry } from '../../shared/proto/registry.js';
import { addressFromPubKey } from '../../shared/proto/signer.js';
import { encodeTxFromRestJson } from '../../shared/proto/tx.js';
import { eventsJson, type SimEvent } from '../chain/events.js';
import { sha256 } from '../chain/keys.js';
import {
  learnRecordedContracts,
  learnRecordedErc721s,
  recordedResources,
  type RecordedContracts,
  type RecordedErc721s,
  type RecordedResources,
} from './state.js';
import { createNormaliser, grepAccounts } from '../truth/accounts.js';
import type { GeneratedTx } from '../chain/assemble.js';
import type { Coin, TxTruth } from '../types.js';

/**
 * `--replay DIR`: every recorded REST tx_response found in DIR's JSON files becomes the only tx
 * of its own block (height = position, files in path order), with its exact events, code, log
 * and gas, and raw bytes re-encoded from its tx JSON by src/shared/proto.
 */
interface RecordedTxResponse {
  tx: {
    body?: { messages?: Array<{ '@type'?: string }> };
    auth_info?: RecordedAuthInfo;
    signatures?: string[];
  };
  events: Array<{ type: string; attributes?: Array<{ key: string; value?: string }> }>;
  code?: number;
  codespace?: string;
  raw_log?: string;
  gas_wanted?: string;
  gas_used?: string;
  data?: string;
}

interface RecordedAuthInfo {
  fee?: { amount?: Coin[] };
  signer_infos?: Array<{ public_key?: { '@type'?: string; key?: string } }>;
}

function jsonFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) out.push(...jsonFiles(full));
    else if (name.endsWith('.json')) out.push(full);
  }
  return out;
}

function findTxResponses(value: unknown, out: RecordedTxResponse[]): void {
  if (Array.isArray(value)) {
    for (const v of value) findTxResponses(v, out);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  const o = value as Record<string, unknown>;
  if (
    Array.isArray(o.events) &&
    o.tx !== null &&
    typeof o.tx === 'object' &&
    ('gas_used' in o || 'txhash' in o)
  ) {
    out.push(o as unknown as RecordedTxResponse);
    return;
  }
  for (const v of Object.values(o)) findTxResponses(v, out);
}

export interface Replay {
  count: number;
  txsAt(height: number): GeneratedTx[];
  /** Move resources recorded with the samples, by address. */
  resources: RecordedResources;
  /** Wasm contracts whose state the replayed txs reveal (instantiations, ICS-721 redemptions). */
  contracts: RecordedContracts;
  /** ERC721s minievm created for IBC classes in the replayed txs. */
  erc721s: RecordedErc721s;
}

export function loadReplay(dir: string, prefix: string, logger: Logger): Replay {
  let files: string[];
  try {
    files = jsonFiles(dir);
  } catch (err) {
    throw new InputError('invalid_replay_dir', `--replay: cannot read ${dir}: ${(err as Error).message}`);
  }
  const registry = createProtoRegistry();
  const normalise = createNormaliser(prefix);
  const seen = new Set<string>();
  const txs: GeneratedTx[] = [];
  const contracts: RecordedContracts = new Map();
  const erc721s: RecordedErc721s = new Map();
  for (const file of files) {
    const found: RecordedTxResponse[] = [];
    findTxResponses(JSON.parse(readFileSync(file, 'utf8')) as unknown, found);
    for (const rec of found) {
      const key = (rec.tx.signatures ?? []).join(',');
      if (key === '' || seen.has(key)) continue;
      seen.add(key);
      try {
        txs.push(replayTx(rec, registry, prefix, normalise, txs.length + 1));
        learnRecordedContracts(contracts, rec, txs.length);
        learnRecordedErc721s(erc721s, rec, txs.length);
      } catch (err) {
        logger.warn({ file, err: (err as Error).message }, 'replay: tx skipped (cannot re-encode)');
      }
    }
  }
  if (txs.length === 0)
    throw new InputError('empty_replay', `--replay: no usable tx_response found in ${dir}`);
  return {
    count: txs.length,
    txsAt: (h) => (h >= 1 && h <= txs.length ? [txs[h - 1]!] : []),
    resources: recordedResources(files),
    contracts,
    erc721s,
  };
}

function replayTx(
  rec: RecordedTxResponse,
  registry: ReturnType<typeof createProtoRegistry>,
  prefix: string,
  normalise: ReturnType<typeof createNormaliser>,
  height: number,
): GeneratedTx {
  const { '@type': _type, ...restTx } = rec.tx as Record<string, unknown>;
  void _type;
  const bytes = encodeTxFromRestJson(registry, restTx);
  const hash = sha256(bytes).toString('hex').toUpperCase();
  const events: SimEvent[] = rec.events.map((e) => ({
    type: e.type,
    attributes: (e.attributes ?? []).map((a) => ({ key: a.key, value: a.value ?? '' })),
  }));
  const code = rec.code ?? 0;
  const codespace = rec.codespace ?? '';
  const log = rec.raw_log ?? '';
  const dataHex = (rec.data ?? '').toUpperCase();
  const gasWanted = Number(rec.gas_wanted ?? '0');
  const gasUsed = Number(rec.gas_used ?? '0');
  const fee = rec.tx.auth_info?.fee?.amount ?? [];
  let resultJson = '{';
  if (code !== 0) resultJson += `"code":${code},`;
  if (dataHex !== '') resultJson += `"data":"${Buffer.from(dataHex, 'hex').toString('base64')}",`;
  if (log !== '') resultJson += `"log":${JSON.stringify(log)},`;
  resultJson += `"gas_wanted":"${gasWanted}","gas_used":"${gasUsed}","events":${eventsJson(events)}`;
  if (codespace !== '') resultJson += `,"codespace":${JSON.stringify(codespace)}`;
  resultJson += '}';
  const pub = rec.tx.auth_info?.signer_infos?.[0]?.public_key;
  const signer =
    pub?.['@type'] && pub.key
      ? toBech32(addressFromPubKey(pub['@type'], Buffer.from(pub.key, 'base64')), prefix)
      : '';
  let truth: TxTruth | undefined;
  return {
    base64: Buffer.from(bytes).toString('base64'),
    hash,
    signatureB64: rec.tx.signatures?.[0] ?? '',
    events,
    resultBytes: Buffer.from(resultJson),
    restTxJson: JSON.stringify(restTx),
    code,
    codespace,
    log,
    dataHex,
    gasWanted,
    gasUsed,
    fee,
    get truth() {
      return (truth ??= {
        hash,
        height,
        index: 0,
        signer,
        accounts: grepAccounts(events, signer, normalise),
        msgTypes: [
          ...new Set((rec.tx.body?.messages ?? []).map((m) => (m['@type'] ?? '').replace(/^\//, ''))),
        ],
        success: code === 0,
        code,
        gasWanted: String(gasWanted),
        gasUsed: String(gasUsed),
        fee,
      });
    },
  };
}
