import { AggregatorRegistry, Registry, collectDefaultMetrics } from 'prom-client';

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

/** What serves `/metrics`: a registry, or several merged at scrape time. */
export interface MetricsSource {
  metrics(): Promise<string>;
  readonly contentType: string;
}

/**
 * A deployment's registries (its own, one per chain with a `chain_id` default label) as one
 * scrape: series of the same metric from different chains differ by that label, so they are
 * listed side by side under one HELP/TYPE, never summed.
 */
export function mergedMetrics(registries: () => readonly Registry[]): MetricsSource {
  return {
    contentType: Registry.PROMETHEUS_CONTENT_TYPE,
    async metrics() {
      const all = await Promise.all(registries().map((r) => r.getMetricsAsJSON()));
      return AggregatorRegistry.aggregate(all).metrics();
    },
  };
}
