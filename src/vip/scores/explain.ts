import { accountKey } from './address-form.js';
import type { ComputeResult } from './compute.js';
import { formatScaled } from './decimal.js';
import type { Rules } from './rules.js';

/** One address's score, step by step: per-metric contributions, rounding, cap, minimum, exclusion. */
export function explainAddress(result: ComputeResult, rules: Rules, address: string, prefix: string) {
  const key = accountKey(address, prefix);
  const score = [...result.all.values()].find((s) => accountKey(s.address, prefix) === key);
  const metrics = rules.metrics.map((m) => {
    const value = score?.values[m.name] ?? '0';
    return {
      name: m.name,
      kind: m.kind,
      value,
      weight: m.weight.text,
      contribution: formatScaled(m.weight.scaled * BigInt(value)),
    };
  });
  return {
    address: score?.address ?? address,
    stage: result.meta.stage,
    window: result.meta.window,
    metrics,
    weighted_sum: formatScaled(score?.weightedScaled ?? 0n),
    rounding: rules.rounding,
    rounded: (score?.rounded ?? 0n).toString(),
    cap: rules.cap?.toString() ?? null,
    capped: score?.capped ?? false,
    minimum: rules.minimum?.text ?? null,
    outcome: score?.outcome ?? 'no_activity',
    exclusion: score?.exclusion ?? null,
    amount_in_file: score?.outcome === 'scored' ? score.amount.toString() : null,
  };
}
