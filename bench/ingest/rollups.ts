/**
 * Many rollups in one deployment (docs/chains.md) against one rollup per deployment, on PostgreSQL,
 * with the built CLI in its own process:
 *
 * - backfill: `indexer` with a chains file of `--chains` (default 3 Move, 3 EVM, 2 Wasm) to
 *   `--blocks` heights, against a single-chain `indexer` of each VM: CPU µs per block (the
 *   single-chain figure weighted by the mix), each chain's blocks/s as a share of the mean, peak RSS
 *   per chain beyond the first;
 * - live (bench/ingest/rollups-live.ts): every chain at `--block-time-ms` × `--live-txs`, `start`
 *   with the chains file; each chain's head lag (a block's arrival on its own block stream,
 *   `/chains/{id}/indexer/stream/v1/blocks`, minus the moment its node made it) p50/p99 and
 *   blocks/s per window of `--live-seconds`, windows interleaved: healthy, then `--rounds` times
 *   (chain 0's node `--slow-ms` slow, healthy, chain 0's node down, healthy). Each sick window's
 *   other chains against the healthy windows on either side (`pairs`), consecutive healthy windows
 *   against each other (`healthyNoise`, the noise floor), and per window the CPU and event-loop
 *   delay of `start`, of the node processes and of this one, and what `start` asks of the sick node.
 *   The nodes and the delaying proxy run in child processes (bench/ingest/rollups-nodes.ts), so this
 *   process's loop only timestamps arrivals (see rollups-live.ts for why).
 *
 *   npm run build && npm run bench:rollups -- [--chains move:3,evm:3,wasm:2] [--blocks 300] [--txs 10]
 *     [--block-time-ms 500] [--live-txs 10] [--live-seconds 60] [--slow-ms 500] [--phase backfill,live]
 *     [--prepare-workers 0] [--rounds 2] [--warmup-seconds 20] [--settle-seconds 5] [--start-log FILE]
 *     [--node-args '--heap-growing-percent=100']   # flags for node itself in every CLI run
 *
 * Prints one JSON object per phase. Needs PostgreSQL (TEST_DATABASE_URL).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { VmType } from '../../src/sim/types.js';
import { startBenchChain, withFreshDatabase, type SimProcess } from '../lib/harness.js';
import { chainsFileEntry, runCli, watchHeights, writeChainsFile } from '../lib/deployment-cli.js';
import { live } from './rollups-live.js';

/** A fresh database per run, named for this process and run. */
let runs = 0;
const withDatabase = <T>(fn: (url: string) => Promise<T>) =>
  withFreshDatabase(adminUrl, `bench_rollups_${process.pid}_${++runs}`, fn);

const { values } = parseArgs({
  options: {
    chains: { type: 'string', default: 'move:3,evm:3,wasm:2' },
    blocks: { type: 'string', default: '300' },
    txs: { type: 'string', default: '10' },
    'block-time-ms': { type: 'string', default: '500' },
    'live-txs': { type: 'string', default: '10' },
    'live-seconds': { type: 'string', default: '60' },
    /** The latency fault's delay on chain 0's node, ms. */
    'slow-ms': { type: 'string', default: '500' },
    /** Seconds of live blocks before the first window: the chains' start-up catch-up is not measured. */
    'warmup-seconds': { type: 'string', default: '20' },
    /** Seconds after the sick chain is back at its head before the next healthy window. */
    'settle-seconds': { type: 'string', default: '5' },
    /** Rounds of (slow, healthy, down, healthy) after the first healthy window. */
    rounds: { type: 'string', default: '2' },
    /** A file for the stderr of the live phase's `start` (its log lines, at LOG_LEVEL=warn). */
    'start-log': { type: 'string' },
    phase: { type: 'string', default: 'backfill,live' },
    cli: { type: 'string', default: 'dist/src/bin/cli.js' },
    /** Prepare threads of every run, single-chain and deployment alike (the deployment's one pool). */
    'prepare-workers': { type: 'string', default: '0' },
    /** V8/Node flags for every CLI run, space-separated (e.g. `--heap-growing-percent=100`). */
    'node-args': { type: 'string', default: '' },
  },
});
const adminUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const blocks = Number(values.blocks);
const mix = values.chains.split(',').flatMap((part) => {
  const [vm, n] = part.split(':');
  return Array.from({ length: Number(n ?? 1) }, () => vm as VmType);
});
const nodeArgs = values['node-args'].split(' ').filter(Boolean);
const chainIdOf = (vm: VmType, i: number) => `bench-${vm}-${i + 1}`;
const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;
const load1 = () => Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);

async function backfill() {
  const dir = await mkdtemp(path.join(tmpdir(), 'bench-rollups-'));
  const sims: SimProcess[] = [];
  try {
    for (const vm of mix)
      sims.push(
        await startBenchChain(vm, blocks, values.txs, [
          '--chain-id',
          chainIdOf(vm, sims.length),
          '--seed',
          String(sims.length + 1),
        ]),
      );
    const single: Record<string, { cpuUsPerBlock: number; rssMb: number }> = {};
    for (const vm of new Set(mix)) {
      const sim = sims[mix.indexOf(vm)]!;
      single[vm] = await withDatabase(async (url) => {
        const run = runCli(
          values.cli,
          ['indexer', '--until', String(blocks), '--port', '0'],
          {
            RPC_URL: sim.rpc,
            REST_URL: sim.rest,
            ...(sim.jsonRpc ? { JSON_RPC_URL: sim.jsonRpc } : {}),
            DATABASE_URL: url,
            PREPARE_WORKERS: values['prepare-workers'],
          },
          nodeArgs,
        );
        const { cpu, rssMb } = await run.exited;
        return { cpuUsPerBlock: Math.round((cpu * 1e6) / blocks), rssMb };
      });
    }
    const file = await writeChainsFile(
      dir,
      sims.map((s, i) => chainsFileEntry(chainIdOf(mix[i]!, i), mix[i]!, s)),
    );
    const deployment = await withDatabase(async (url) => {
      const started = performance.now();
      const run = runCli(
        values.cli,
        ['indexer', '--port', '0'],
        {
          CHAINS_FILE: file,
          DATABASE_URL: url,
          UNTIL_HEIGHT: String(blocks),
          PREPARE_WORKERS: values['prepare-workers'],
        },
        nodeArgs,
      );
      const ids = sims.map((_, i) => chainIdOf(mix[i]!, i));
      const reached = watchHeights(await run.listening, blocks, ids, run.exited);
      const { cpu, rssMb } = await run.exited;
      const exited = performance.now();
      // The process ends once every chain is there: a chain it reached between two polls of
      // /chains is not in `reached`, and the exit (at most one poll later) stands in for it.
      const seen = await reached;
      const rates = ids.map((id) => blocks / (((seen.get(id) ?? exited) - started) / 1000));
      return { cpu, rssMb, rates };
    });
    const weightedSingle = mix.reduce((sum, vm) => sum + single[vm]!.cpuUsPerBlock, 0) / mix.length;
    const cpuUsPerBlock = Math.round((deployment.cpu * 1e6) / (blocks * mix.length));
    const mean = deployment.rates.reduce((a, b) => a + b, 0) / deployment.rates.length;
    const singleRss = Math.max(...Object.values(single).map((s) => s.rssMb));
    return {
      bench: 'rollups-backfill',
      chains: values.chains,
      prepareWorkers: Number(values['prepare-workers']),
      nodeArgs,
      blocks,
      txsPerBlock: values.txs,
      single,
      deploymentCpuUsPerBlock: cpuUsPerBlock,
      singleCpuUsPerBlockWeighted: Math.round(weightedSingle),
      cpuRatio: round(cpuUsPerBlock / weightedSingle),
      shareOfMean: deployment.rates.map((r) => round(r / mean)),
      deploymentPeakRssMb: deployment.rssMb,
      rssPerExtraChainMb: round((deployment.rssMb - singleRss) / (mix.length - 1), 1),
      load1End: load1(),
    };
  } finally {
    await Promise.all(sims.map((s) => s.stop()));
    await rm(dir, { recursive: true, force: true });
  }
}

const phases = values.phase.split(',');
if (phases.includes('backfill')) console.log(JSON.stringify(await backfill()));
if (phases.includes('live'))
  console.log(
    JSON.stringify(
      await live({
        mix,
        chainIdOf,
        blockTimeMs: Number(values['block-time-ms']),
        txsPerBlock: values['live-txs'],
        seconds: Number(values['live-seconds']),
        slowMs: Number(values['slow-ms']),
        warmupSeconds: Number(values['warmup-seconds']),
        settleSeconds: Number(values['settle-seconds']),
        rounds: Number(values.rounds),
        cli: values.cli,
        nodeArgs,
        startLog: values['start-log'],
        withDatabase,
      }),
    ),
  );
