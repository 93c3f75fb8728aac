import { AppError } from '../../shared/errors.js';
import { packageVersion } from '../../shared/version.js';
import type { Db } from '../../store/driver/db.js';
import { readChainMeta, readIndexedHeight } from '../../store/readers/chain-meta.js';
import { accountsById, txSequenceRange, type ScoreMetricRow } from '../../store/readers/vip-score-metrics.js';
import { U64_MAX } from '../scores-file.js';
import { accountKey, scoreAddress, type ScoresVm } from './address-form.js';
import { roundScaled, SCALE } from './decimal.js';
import { readScoreMetric } from './score-metrics.js';
import { moduleAddressHex, STANDARD_MODULE_NAMES } from './module-accounts.js';
import { renderMeta, renderScoresCsv, type ScoresMeta } from './output.js';
import type { LoadedRules, Rules } from './rules.js';
import { resolveWindow, type ScoreWindow, type WindowSpec } from './window.js';

export const INDEXER_VERSION = packageVersion();

export interface ScoresContext {
  db: Db;
  /** bech32 prefix of the chain's accounts (default 'init'). */
  prefix?: string;
  indexerVersion?: string;
  /** Needed when the rules set exclude_operator. */
  operatorAddress?: string;
  /** Module accounts a node listed, on top of the derived standard ones. */
  extraModuleAccounts?: readonly string[];
}

export interface ComputeInput {
  stage: bigint;
  rules: LoadedRules;
  window: WindowSpec;
}

/** Why an address with activity has no row in the file. */
export type Outcome = 'scored' | 'excluded' | 'below_minimum' | 'zero';

export interface AddressScore {
  address: string;
  /** Per metric name: the metric's value (exact decimal text; "0" when none). */
  values: Record<string, string>;
  /** Σ weight × value, exact (10^-18 units). */
  weightedScaled: bigint;
  rounded: bigint;
  capped: boolean;
  amount: bigint;
  outcome: Outcome;
  /** Why excluded (module account, rules exclude list, operator). */
  exclusion?: string;
}

export interface ComputeResult {
  rows: { address: string; amount: bigint }[];
  meta: ScoresMeta;
  csv: string;
  metaJson: string;
  /** Every address with a non-zero metric in the window, by address. */
  all: Map<string, AddressScore>;
  window: ScoreWindow;
}

/** Turns the index's window into scores: one SQL aggregation per metric, exact weighting here. */
export async function computeScores(ctx: ScoresContext, input: ComputeInput): Promise<ComputeResult> {
  const prefix = ctx.prefix ?? 'init';
  const { rules } = input.rules;
  const chain = await readChainMeta(ctx.db);
  if (!chain) throw new AppError('window_not_indexed', 'the index has no chain_meta: nothing was ingested');
  const vm = chain.vmType as ScoresVm;
  const indexedHeight = await readIndexedHeight(ctx.db);
  const window = await resolveWindow(ctx.db, input.window, { stage: input.stage });
  const seqRange = await txSequenceRange(ctx.db, window.fromHeight, window.toHeight);
  const perMetric: ScoreMetricRow[][] = [];
  const metricWindow = { heights: { from: window.fromHeight, to: window.toHeight }, txs: seqRange };
  for (const metric of rules.metrics) {
    perMetric.push(await readScoreMetric(ctx.db, metricWindow, metric, { vm, prefix }));
  }
  const exclusions = exclusionSet(rules, ctx, prefix);
  const all = await scoreAccounts(ctx.db, rules, perMetric, { vm, prefix, exclusions });
  const rows = [...all.values()]
    .filter((s) => s.outcome === 'scored')
    .map((s) => ({ address: s.address, amount: s.amount }));
  const meta = renderMeta({
    chainId: chain.chainId,
    vm,
    stage: input.stage,
    window,
    rules: input.rules,
    indexerVersion: ctx.indexerVersion ?? INDEXER_VERSION,
    indexedHeight,
    excluded: [...exclusions.entries()].map(([key, why]) => ({ account: key, why })),
    metricTotals: rules.metrics.map((m, i) => metricTotal(m.name, m.kind, m.weight.text, perMetric[i] ?? [])),
    rows,
  });
  return {
    rows,
    meta,
    csv: renderScoresCsv(meta, rows),
    metaJson: `${JSON.stringify(meta, null, 2)}\n`,
    all,
    window,
  };
}

function metricTotal(name: string, kind: string, weight: string, rows: ScoreMetricRow[]) {
  const total = rows.reduce((n, r) => n + BigInt(r.value), 0n);
  return { name, kind, weight, addresses: rows.length, total: total.toString() };
}

/** account-bytes hex → reason. */
function exclusionSet(rules: Rules, ctx: ScoresContext, prefix: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const name of STANDARD_MODULE_NAMES) out.set(moduleAddressHex(name), `module account ${name}`);
  for (const a of ctx.extraModuleAccounts ?? []) out.set(accountKey(a, prefix), 'module account (node)');
  for (const a of rules.exclude) out.set(accountKey(a, prefix), 'rules exclude');
  if (rules.excludeOperator) {
    if (!ctx.operatorAddress) {
      throw new AppError(
        'missing_option',
        'the rules set exclude_operator: give the operator address (--operator)',
      );
    }
    out.set(accountKey(ctx.operatorAddress, prefix), 'operator');
  }
  return out;
}

async function scoreAccounts(
  db: Db,
  rules: Rules,
  perMetric: ScoreMetricRow[][],
  chain: { vm: ScoresVm; prefix: string; exclusions: Map<string, string> },
): Promise<Map<string, AddressScore>> {
  const values = new Map<number, Record<string, string>>();
  rules.metrics.forEach((m, i) => {
    for (const r of perMetric[i] ?? []) {
      if (!/^\d+$/.test(r.value))
        throw new AppError('internal', `metric ${m.name}: non-integer value ${r.value}`);
      if (r.value === '0') continue;
      const v = values.get(r.accountId) ?? {};
      v[m.name] = r.value;
      values.set(r.accountId, v);
    }
  });
  const accounts = await accountsById(db, [...values.keys()]);
  const out = new Map<string, AddressScore>();
  for (const [id, vals] of values) {
    const bytes = accounts.get(id);
    if (!bytes) throw new AppError('internal', `account id ${id} is missing from account_dict`);
    const score = scoreOne(rules, vals, bytes, chain);
    out.set(score.address, score);
  }
  return new Map([...out].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function scoreOne(
  rules: Rules,
  vals: Record<string, string>,
  bytes: Uint8Array,
  chain: { vm: ScoresVm; prefix: string; exclusions: Map<string, string> },
): AddressScore {
  const exclusion = chain.exclusions.get(Buffer.from(bytes).toString('hex'));
  const address = scoreAddress(chain.vm, bytes, chain.prefix);
  const values: Record<string, string> = {};
  let weightedScaled = 0n;
  for (const m of rules.metrics) {
    const v = vals[m.name] ?? '0';
    values[m.name] = v;
    weightedScaled += m.weight.scaled * BigInt(v);
  }
  const rounded = roundScaled(weightedScaled, rules.rounding);
  const capped = rules.cap !== undefined && rounded > rules.cap;
  const amount = capped ? (rules.cap ?? rounded) : rounded;
  let outcome: Outcome = 'scored';
  if (exclusion) outcome = 'excluded';
  else if (amount === 0n) outcome = 'zero';
  else if (rules.minimum !== undefined && amount * SCALE < rules.minimum.scaled) outcome = 'below_minimum';
  if (outcome === 'scored' && amount > U64_MAX) {
    throw new AppError('score_overflow', `score ${amount} of ${address} exceeds the u64 maximum ${U64_MAX}`);
  }
  return {
    address,
    values,
    weightedScaled,
    rounded,
    capped,
    amount,
    outcome,
    ...(exclusion ? { exclusion } : {}),
  };
}
