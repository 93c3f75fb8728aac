import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { isMap, isScalar } from 'yaml';
import { InputError } from '../../shared/errors.js';
import { YamlFileReader, type FieldPath } from '../../shared/yaml-file.js';
import { parseDecimal, SCALE, type Decimal } from './decimal.js';

/**
 * The rules file (docs/vip-scores.md, docs/vip-rules.schema.json): a weighted sum of per-address
 * metrics over a window. JSON is YAML 1.2, so one parser reads both and keeps line positions for
 * every error.
 */

export type ScoreMetricKind =
  | 'txs_signed'
  | 'gas_used'
  | 'fees_paid'
  | 'msg_txs'
  | 'evm_txs_to'
  | 'nft_mints'
  | 'nft_received'
  | 'active_days';

export const METRIC_KINDS: readonly ScoreMetricKind[] = [
  'txs_signed',
  'gas_used',
  'fees_paid',
  'msg_txs',
  'evm_txs_to',
  'nft_mints',
  'nft_received',
  'active_days',
];

export interface MoveFilter {
  moduleAddress: string;
  moduleName: string;
  function: string;
}

export interface ScoreMetric {
  name: string;
  kind: ScoreMetricKind;
  weight: Decimal;
  /** fees_paid */
  denom?: string;
  /** msg_txs: type URLs without the leading '/'. */
  msgTypes?: string[];
  move?: MoveFilter;
  /** msg_txs on Wasm: the contract, as written (normalised when the chain's prefix is known). */
  wasmContract?: string;
  /** evm_txs_to: 0x + 40 lower-case hex. */
  contract?: string;
  /** evm_txs_to: 0x + 8 lower-case hex. */
  selector?: string;
  /** nft_*: collection address as written (normalised against the index). */
  collection?: string;
}

export type Rounding = 'floor' | 'round_half_up' | 'ceil';

export interface Rules {
  version: 1;
  metrics: ScoreMetric[];
  /** Whole-number cap (a decimal cap is floored: scores are integers). */
  cap?: bigint;
  /** Compared exactly with the rounded, capped score. */
  minimum?: Decimal;
  exclude: string[];
  excludeOperator: boolean;
  rounding: Rounding;
}

export interface LoadedRules {
  rules: Rules;
  /** sha256 (hex) of the file's bytes. */
  sha256: string;
  path: string;
}

const TOP_KEYS = ['version', 'metrics', 'cap', 'minimum', 'exclude', 'exclude_operator', 'rounding'];
const KIND_KEYS: Record<ScoreMetricKind, string[]> = {
  txs_signed: [],
  gas_used: [],
  fees_paid: ['denom'],
  msg_txs: ['msg_types', 'move', 'wasm'],
  evm_txs_to: ['contract', 'selector'],
  nft_mints: ['collection'],
  nft_received: ['collection'],
  active_days: [],
};
const NAME_RE = /^[a-z][a-z0-9_]*$/;

type Path = FieldPath;

export function parseRules(text: string, fileName: string): Rules {
  const r: YamlFileReader = YamlFileReader.parse(text, fileName, 'invalid_rules');
  if (!isMap(r.node([]))) r.fail([], 'the rules file must be a mapping with version and metrics');
  r.keys([], TOP_KEYS);
  if (r.text(['version'], 'the number 1') !== '1') r.fail(['version'], 'must be 1');
  const count = r.seqLength(['metrics'], 'metrics');
  if (count === 0) r.fail(['metrics'], 'needs at least one metric');
  const metrics: ScoreMetric[] = [];
  for (let i = 0; i < count; i++) {
    const metric = readMetric(r, ['metrics', i]);
    if (metrics.some((m) => m.name === metric.name))
      r.fail(['metrics', i, 'name'], `duplicate name "${metric.name}"`);
    metrics.push(metric);
  }
  const exclude: string[] = [];
  if (r.node(['exclude']) !== undefined) {
    const n = r.seqLength(['exclude'], 'addresses');
    for (let i = 0; i < n; i++) exclude.push(r.string(['exclude', i], 'an address'));
  }
  let excludeOperator = false;
  const op = r.node(['exclude_operator']);
  if (op !== undefined) {
    const value = isScalar(op) ? op.value : undefined;
    if (typeof value !== 'boolean') r.fail(['exclude_operator'], 'must be true or false');
    excludeOperator = value;
  }
  const rounding = (r.optionalString(
    ['rounding'],
    /^(floor|round_half_up|ceil)$/,
    'floor, round_half_up or ceil',
  ) ?? 'floor') as Rounding;
  const capDecimal = readDecimal(r, ['cap']);
  const cap = capDecimal === undefined ? undefined : capDecimal.scaled / SCALE;
  const minimum = readDecimal(r, ['minimum']);
  return {
    version: 1,
    metrics,
    ...(cap === undefined ? {} : { cap }),
    ...(minimum === undefined ? {} : { minimum }),
    exclude,
    excludeOperator,
    rounding,
  };
}

function readDecimal(r: YamlFileReader, path: Path): Decimal | undefined {
  if (r.node(path) === undefined) return undefined;
  const value = parseDecimal(r.text(path, 'a decimal >= 0'));
  if (!value) r.fail(path, 'must be a decimal >= 0 with at most 18 fractional digits');
  return value;
}

function readMetric(r: YamlFileReader, at: Path): ScoreMetric {
  const present = r.keys(at, ['name', 'kind', 'weight', ...new Set(Object.values(KIND_KEYS).flat())]);
  const name = r.string([...at, 'name'], 'a name matching [a-z][a-z0-9_]*');
  if (!NAME_RE.test(name)) r.fail([...at, 'name'], 'must match [a-z][a-z0-9_]*');
  const kind = r.string([...at, 'kind'], `one of ${METRIC_KINDS.join(', ')}`) as ScoreMetricKind;
  if (!METRIC_KINDS.includes(kind)) r.fail([...at, 'kind'], `must be one of ${METRIC_KINDS.join(', ')}`);
  for (const key of present) {
    if (!['name', 'kind', 'weight', ...KIND_KEYS[kind]].includes(key)) {
      r.fail([...at, key], `not allowed for kind ${kind}`);
    }
  }
  const weightText = r.text([...at, 'weight'], 'a decimal >= 0');
  const weight = parseDecimal(weightText);
  if (!weight) r.fail([...at, 'weight'], 'must be a decimal >= 0 with at most 18 fractional digits');
  const metric: ScoreMetric = { name, kind, weight };
  switch (kind) {
    case 'fees_paid':
      metric.denom = r.string([...at, 'denom'], 'a denom');
      break;
    case 'msg_txs':
      readMsgFilter(r, at, metric);
      break;
    case 'evm_txs_to': {
      metric.contract = r.string([...at, 'contract'], 'a 0x contract address').toLowerCase();
      if (!/^0x[0-9a-f]{40}$/.test(metric.contract))
        r.fail([...at, 'contract'], 'must be 0x and 40 hex digits');
      const selector = r.optionalString([...at, 'selector'], /^0x[0-9a-fA-F]{8}$/, '0x and 8 hex digits');
      if (selector) metric.selector = selector.toLowerCase();
      break;
    }
    case 'nft_mints':
    case 'nft_received': {
      const collection = r.optionalString([...at, 'collection'], /^\S+$/, 'a collection address');
      if (collection) metric.collection = collection;
      break;
    }
    default:
      break;
  }
  return metric;
}

function readMsgFilter(r: YamlFileReader, at: Path, metric: ScoreMetric): void {
  const n = r.seqLength([...at, 'msg_types'], 'message type URLs');
  if (n === 0) r.fail([...at, 'msg_types'], 'needs at least one message type');
  metric.msgTypes = [];
  for (let i = 0; i < n; i++) {
    const t = r.string([...at, 'msg_types', i], 'a message type URL').replace(/^\//, '');
    if (!/^[A-Za-z0-9_.]+$/.test(t))
      r.fail([...at, 'msg_types', i], 'must be a type URL like /initia.move.v1.MsgExecute');
    metric.msgTypes.push(t);
  }
  if (r.node([...at, 'move']) !== undefined) {
    if (r.node([...at, 'wasm']) !== undefined)
      r.fail([...at, 'wasm'], 'move and wasm filters exclude each other');
    r.keys([...at, 'move'], ['module_address', 'module_name', 'function']);
    metric.move = {
      moduleAddress: r.string([...at, 'move', 'module_address'], 'a module address'),
      moduleName: r.string([...at, 'move', 'module_name'], 'a module name'),
      function: r.string([...at, 'move', 'function'], 'a function name'),
    };
  }
  if (r.node([...at, 'wasm']) !== undefined) {
    r.keys([...at, 'wasm'], ['contract']);
    metric.wasmContract = r.string([...at, 'wasm', 'contract'], 'a contract address');
  }
}

export async function loadRulesFile(path: string): Promise<LoadedRules> {
  const bytes = await readFile(path).catch(() => {
    throw new InputError('missing_file', `cannot read rules file ${path}`);
  });
  return {
    rules: parseRules(bytes.toString('utf8'), basename(path)),
    sha256: createHash('sha256').update(bytes).digest('hex'),
    path,
  };
}
