import { writeFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { ScoresVm } from './address-form.js';
import type { LoadedRules } from './rules.js';
import type { ScoreWindow } from './window.js';

/**
 * The scores file `vip update-scores --scores` reads: `#` comment lines naming the inputs, the
 * `address,amount` header, one row per address sorted by address. Everything in it is a function
 * of (index, rules, window), so a re-run gives the same bytes; facts that change with time (the
 * indexed height at compute time) go only into the sidecar `<out>.meta.json`.
 */

export const SCORES_FORMAT = 'rollup-indexer/vip-scores/1';

export interface ScoreMetricTotal {
  name: string;
  kind: string;
  weight: string;
  /** Addresses with a non-zero value, exclusions included. */
  addresses: number;
  total: string;
}

export interface ScoresMeta {
  format: string;
  chain_id: string;
  vm: ScoresVm;
  stage: string;
  window: {
    source: ScoreWindow['source'];
    from_height: number;
    to_height: number;
    from_block_time: string;
    to_block_time: string;
    requested_from: string;
    requested_to: string;
  };
  rules: { file: string; sha256: string; rounding: string; cap: string | null; minimum: string | null };
  indexer_version: string;
  indexed_height: number;
  excluded: { account: string; why: string }[];
  metrics: ScoreMetricTotal[];
  addresses: number;
  total_score: string;
}

export function renderMeta(input: {
  chainId: string;
  vm: ScoresVm;
  stage: bigint;
  window: ScoreWindow;
  rules: LoadedRules;
  indexerVersion: string;
  indexedHeight: number;
  excluded: { account: string; why: string }[];
  metricTotals: ScoreMetricTotal[];
  rows: { amount: bigint }[];
}): ScoresMeta {
  const w = input.window;
  const r = input.rules.rules;
  return {
    format: SCORES_FORMAT,
    chain_id: input.chainId,
    vm: input.vm,
    stage: input.stage.toString(),
    window: {
      source: w.source,
      from_height: w.fromHeight,
      to_height: w.toHeight,
      from_block_time: w.fromBlockTime,
      to_block_time: w.toBlockTime,
      requested_from: w.requestedFrom,
      requested_to: w.requestedTo,
    },
    rules: {
      file: basename(input.rules.path),
      sha256: input.rules.sha256,
      rounding: r.rounding,
      cap: r.cap?.toString() ?? null,
      minimum: r.minimum?.text ?? null,
    },
    indexer_version: input.indexerVersion,
    indexed_height: input.indexedHeight,
    excluded: [...input.excluded].sort((a, b) =>
      a.account < b.account ? -1 : a.account > b.account ? 1 : 0,
    ),
    metrics: input.metricTotals,
    addresses: input.rows.length,
    total_score: input.rows.reduce((n, row) => n + row.amount, 0n).toString(),
  };
}

export function renderScoresCsv(
  meta: ScoresMeta,
  rows: readonly { address: string; amount: bigint }[],
): string {
  const w = meta.window;
  const head = [
    `# ${SCORES_FORMAT}`,
    `# chain_id: ${meta.chain_id}`,
    `# vm: ${meta.vm}`,
    `# stage: ${meta.stage}`,
    `# window_heights: ${w.from_height}-${w.to_height}`,
    `# window_block_times: ${w.from_block_time} .. ${w.to_block_time}`,
    `# window_requested: ${w.source} ${w.requested_from} .. ${w.requested_to}`,
    `# rules_sha256: ${meta.rules.sha256}`,
    `# indexer_version: ${meta.indexer_version}`,
    `# addresses: ${rows.length}, total: ${meta.total_score}`,
    'address,amount',
  ];
  return `${[...head, ...rows.map((r) => `${r.address},${r.amount}`)].join('\n')}\n`;
}

/** Writes the CSV and `<out>.meta.json`. */
export async function writeScoresFiles(
  out: string,
  result: { csv: string; metaJson: string },
): Promise<void> {
  await writeFile(out, result.csv);
  await writeFile(`${out}.meta.json`, result.metaJson);
}
