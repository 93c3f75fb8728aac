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

/**
 * The metric named `name` on the registry, made by `make` the first time: several apps (tests,
 * `start` with its API and ingest) share one registry, and prom-client refuses a second register.
 */
export function registeredMetric<M>(registry: Registry, name: string, make: () => M): M {
  return (registry.getSingleMetric(name) as M | undefined) ?? make();
}
