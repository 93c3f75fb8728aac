import { describe, expect, it } from 'vitest';
import { createMetricsRegistry } from '../shared/metrics.js';
import { createNodeMetrics } from './metrics.js';

describe('createNodeMetrics', () => {
  it('registers once per registry: a restarted ingest service counts into the same series', async () => {
    const registry = createMetricsRegistry({ defaultMetrics: false });
    const first = createNodeMetrics(registry);
    first.requests.inc({ surface: 'rpc', purpose: 'block' });
    const again = createNodeMetrics(registry);
    again.requests.inc({ surface: 'rpc', purpose: 'block' });
    expect(again.requests).toBe(first.requests);
    const text = await registry.metrics();
    expect(text).toContain('rollup_indexer_node_requests_total{surface="rpc",purpose="block"} 2');
    expect(text.match(/^# TYPE rollup_indexer_node_request_seconds /gm)).toHaveLength(1);
  });
});
