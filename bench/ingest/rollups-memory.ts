/**
 * What one more chain of a deployment costs in memory (docs/chains.md §7): `start` with a chains
 * file of `--chains` Move rollups run in this process (simulators in their own), every chain
 * indexed to `--blocks`, then the process's RSS and heap after a full GC, and its peak RSS. Run it
 * once per chain count (a fresh process each) and take the difference per extra chain.
 *
 *   node --expose-gc --import tsx bench/ingest/rollups-memory.ts --chains 3 [--blocks 100] [--txs 10]
 *     [--impl src/bin/deployment-process.ts]   # another build's module to compare with
 *
 * PREPARE_WORKERS from the environment (default here 0). Needs PostgreSQL (TEST_DATABASE_URL).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { silentLogger } from '../../src/shared/logger.js';
import { startBenchChain, withFreshDatabase, type SimProcess } from '../lib/harness.js';

const { values } = parseArgs({
  options: {
    chains: { type: 'string', default: '3' },
    blocks: { type: 'string', default: '100' },
    txs: { type: 'string', default: '10' },
    impl: { type: 'string', default: 'src/bin/deployment-process.ts' },
  },
});
const adminUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const blocks = Number(values.blocks);
const n = Number(values.chains);
const impl = (await import(
  pathToFileURL(path.resolve(values.impl)).href
)) as typeof import('../../src/bin/deployment-process.js');
const { loadDeploymentConfig } = (await import(
  pathToFileURL(path.resolve(path.dirname(values.impl), `deployment-config${path.extname(values.impl)}`)).href
)) as typeof import('../../src/bin/deployment-config.js');
const mb = (bytes: number) => Math.round(bytes / 1e5) / 10;

const dir = await mkdtemp(path.join(tmpdir(), 'bench-rollups-memory-'));
const sims: SimProcess[] = [];
try {
  for (let i = 0; i < n; i++)
    sims.push(
      await startBenchChain('move', blocks, values.txs, [
        '--chain-id',
        `mem-move-${i + 1}`,
        '--seed',
        String(i + 1),
      ]),
    );
  const file = path.join(dir, 'chains.json');
  await writeFile(
    file,
    JSON.stringify({
      chains: sims.map((s, i) => ({ chain_id: `mem-move-${i + 1}`, vm: 'move', rpc: s.rpc, rest: s.rest })),
    }),
  );
  const result = await withFreshDatabase(adminUrl, `bench_rollups_memory_${process.pid}`, async (url) => {
    const config = loadDeploymentConfig(
      {
        CHAINS_FILE: file,
        DATABASE_URL: url,
        PORT: '0',
        HOST: '127.0.0.1',
        PREPARE_WORKERS: process.env.PREPARE_WORKERS ?? '0',
      },
      {},
      { serveApi: true },
    )!;
    const stop = new AbortController();
    let listening!: (url: string) => void;
    const at = new Promise<string>((resolve) => (listening = resolve));
    const done = impl.runDeploymentProcess({
      config,
      serveApi: true,
      signal: stop.signal,
      logger: silentLogger(),
      onListening: (u: string) => listening(u),
    });
    const base = await at;
    // Every chain at its head, from the deployment's own /chains (either build answers it).
    for (;;) {
      // A pooled connection may be reset on a loaded host: ask again.
      const body = (await fetch(`${base}/chains`)
        .then((r) => r.json())
        .catch(() => ({ chains: [{ indexed_height: 0 }] }))) as { chains: { indexed_height: number }[] };
      if (body.chains.every((c) => c.indexed_height >= blocks)) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const gc = (globalThis as { gc?: () => void }).gc;
    gc?.();
    gc?.();
    const m = process.memoryUsage();
    const sample = {
      rssMb: mb(m.rss),
      heapUsedMb: mb(m.heapUsed),
      externalMb: mb(m.external),
      peakRssMb: mb(process.resourceUsage().maxRSS * 1024),
    };
    stop.abort();
    await done;
    return sample;
  });
  console.log(
    JSON.stringify({
      bench: 'rollups-memory',
      impl: values.impl,
      chains: n,
      blocks,
      txs: values.txs,
      prepareWorkers: process.env.PREPARE_WORKERS ?? '0',
      ...result,
    }),
  );
} finally {
  await Promise.all(sims.map((s) => s.stop()));
  await rm(dir, { recursive: true, force: true });
}
