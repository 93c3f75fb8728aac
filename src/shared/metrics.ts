import { Registry, collectDefaultMetrics } from 'prom-client';

export type { Registry };

/** One registry per process; each part registers its own metrics on it. */
export function createMetricsRegistry(
  options: { defaultMetrics: boolean } = { defaultMetrics: true },
): Registry {
  const registry = new Registry();
  if (options.defaultMetrics) collectDefaultMetrics({ register: registry, prefix: 'rollup_indexer_' });
  return registry;
}
