/**
 * Many rollups in one deployment (docs/chains.md) against one rollup per deployment, on PostgreSQL,
 * with the built CLI in its own process:
 *
 * - backfill: `indexer` with a chains file of `--chains` (default 3 Move, 3 EVM, 2 Wasm) to
 *   `--blocks` heights, against a single-chain `indexer` of each VM: CPU µs per block (the
 *   single-chain figure weighted by the mix), each chain's blocks/s as a share of the mean, peak RSS
 *   per chain beyond the first;
 * - live: every chain at `--block-time-ms` × `--live-txs`, `start` with the chains file; each
 *   chain's head lag (a block's arrival on its own block stream, `/chains/{id}/indexer/stream/v1/blocks`,
 *   minus the moment its simulator made it) p50/p99 and blocks/s, for `--live-seconds`; then the
 *   same with chain 0's node answering every request `--slow-ms` late (a latency fault, through a
 *   delaying proxy in this process), then stalled (every request refused) — the others' lag and
 *   throughput in each window against the healthy one.
 *
 *   npm run build && npm run bench:rollups -- [--chains move:3,evm:3,wasm:2] [--blocks 300] [--txs 10]
 *     [--block-time-ms 500] [--live-txs 10] [--live-seconds 60] [--slow-ms 500] [--phase backfill,live]
 *     [--prepare-workers 0]
 *     [--node-args '--heap-growing-percent=100']   # flags for node itself in every CLI run
 *
 * Prints one JSON object per phase. Needs PostgreSQL (TEST_DATABASE_URL).
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createSimulator } from '../../src/sim/simulator.js';
import type { Simulator, VmType } from '../../src/sim/types.js';
import {
  percentile,
  processCpuSeconds,
  startBenchChain,
  withFreshDatabase,
  type SimProcess,
} from '../lib/harness.js';

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

/** The CLI under /usr/bin/time; resolves with its CPU seconds and peak RSS once it exits. */
function runCli(args: string[], env: NodeJS.ProcessEnv) {
  const child = spawn(
    '/usr/bin/time',
    ['-f', 'TIME %U %S %M', process.execPath, ...nodeArgs, path.resolve(values.cli), ...args],
    {
      env: { ...process.env, LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group: a stop reaches the CLI under /usr/bin/time too.
      detached: true,
    },
  );
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const listening = new Promise<string>((resolve) => {
    child.stderr!.on('data', () => {
      const m = /listening on (http:\/\/\S+)/.exec(stderr);
      if (m) resolve(m[1]!);
    });
  });
  const exited = new Promise<{ cpu: number; rssMb: number }>((resolve, reject) => {
    child.once('exit', (code) => {
      const m = /^TIME (\S+) (\S+) (\d+)$/m.exec(stderr);
      if (code !== 0 || !m) reject(new Error(`cli exited with ${code}: ${stderr.slice(-1500)}`));
      else resolve({ cpu: Number(m[1]) + Number(m[2]), rssMb: Math.round(Number(m[3]) / 1024) });
    });
  });
  return { child, listening, exited };
}

function chainsFileEntry(
  chainId: string,
  vm: VmType,
  urls: { rpc: string; rest: string; jsonRpc?: string | undefined },
) {
  return {
    chain_id: chainId,
    vm,
    rpc: urls.rpc,
    rest: urls.rest,
    ...(urls.jsonRpc ? { json_rpc: urls.jsonRpc } : {}),
  };
}

async function writeChainsFile(dir: string, entries: unknown[]): Promise<string> {
  const file = path.join(dir, 'chains.json');
  await writeFile(file, JSON.stringify({ chains: entries }));
  return file;
}

/** Each chain's first moment at or past `height`, from the deployment's /chains. */
async function watchHeights(url: string, height: number, ids: string[], done: Promise<unknown>) {
  const reached = new Map<string, number>();
  let over = false;
  void done.catch(() => undefined).finally(() => (over = true));
  while (!over && reached.size < ids.length) {
    try {
      const body = (await (await fetch(`${url}/chains`)).json()) as {
        chains: Array<{ chain_id: string; indexed_height: number }>;
      };
      for (const c of body.chains)
        if (c.indexed_height >= height && !reached.has(c.chain_id))
          reached.set(c.chain_id, performance.now());
    } catch {
      // The process is starting or stopping.
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return reached;
}

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
        const run = runCli(['indexer', '--until', String(blocks), '--port', '0'], {
          RPC_URL: sim.rpc,
          REST_URL: sim.rest,
          ...(sim.jsonRpc ? { JSON_RPC_URL: sim.jsonRpc } : {}),
          DATABASE_URL: url,
          PREPARE_WORKERS: values['prepare-workers'],
        });
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
      const run = runCli(['indexer', '--port', '0'], {
        CHAINS_FILE: file,
        DATABASE_URL: url,
        UNTIL_HEIGHT: String(blocks),
        PREPARE_WORKERS: values['prepare-workers'],
      });
      const reached = watchHeights(
        await run.listening,
        blocks,
        sims.map((_, i) => chainIdOf(mix[i]!, i)),
        run.exited,
      );
      const { cpu, rssMb } = await run.exited;
      const rates = [...(await reached).values()].map((t) => blocks / ((t - started) / 1000));
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

/**
 * A proxy in front of one node surface that answers every request `delay.ms` late (0: at once):
 * a slow node without restarting the simulator. Resolves with its base URL.
 */
async function delayingProxy(target: string, delay: { ms: number }): Promise<{ url: string; close(): void }> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      setTimeout(() => {
        const upstream = http.request(
          `${target}${req.url ?? '/'}`,
          { method: req.method, headers: { ...req.headers, host: new URL(target).host } },
          (answer) => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
          },
        );
        upstream.on('error', () => res.destroy());
        upstream.end(Buffer.concat(chunks));
      }, delay.ms);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

/** Follows each chain's block stream; records the lag of every block against its simulator's clock. */
function followBlocks(
  url: string,
  chainId: string,
  madeAt: Map<number, number>,
  lags: number[],
  stop: AbortSignal,
) {
  void (async () => {
    const res = await fetch(`${url}/chains/${chainId}/indexer/stream/v1/blocks`, { signal: stop });
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = /^data: (.*)$/m.exec(frame)?.[1];
        if (!data || !frame.includes('event: block')) continue;
        const height = Number((JSON.parse(data) as { height: string }).height);
        const made = madeAt.get(height);
        if (made !== undefined) lags.push(performance.now() - made);
      }
    }
  })().catch(() => undefined);
}

async function live() {
  const dir = await mkdtemp(path.join(tmpdir(), 'bench-rollups-live-'));
  const sims: Simulator[] = mix.map((vm, i) =>
    createSimulator({
      vm,
      chainId: chainIdOf(vm, i),
      seed: i + 1,
      head: 10,
      live: true,
      blockTimeMs: Number(values['block-time-ms']),
      txsPerBlock: values['live-txs'],
      fastSignatures: true,
      rpcPort: 0,
      restPort: 0,
      jsonRpcPort: 0,
    }),
  );
  // When each simulator made each height (polled in this process, 5 ms resolution).
  const madeAt = sims.map(() => new Map<number, number>());
  const slowNode = { ms: 0 };
  const proxies: { close(): void }[] = [];
  const clock = setInterval(
    () => sims.forEach((s, i) => madeAt[i]!.has(s.head()) || madeAt[i]!.set(s.head(), performance.now())),
    5,
  );
  try {
    const urls = await Promise.all(sims.map((s) => s.listen()));
    // Chain 0's node is reached through delaying proxies (no delay until the latency window).
    const own = urls[0]!;
    const proxied = await Promise.all(
      [own.rpc, own.rest, ...(own.jsonRpc ? [own.jsonRpc] : [])].map((u) => delayingProxy(u, slowNode)),
    );
    proxies.push(...proxied);
    urls[0] = {
      ...own,
      rpc: proxied[0]!.url,
      rest: proxied[1]!.url,
      ...(own.jsonRpc ? { jsonRpc: proxied[2]!.url } : {}),
    };
    const file = await writeChainsFile(
      dir,
      urls.map((u, i) => chainsFileEntry(chainIdOf(mix[i]!, i), mix[i]!, u)),
    );
    return await withDatabase(async (dbUrl) => {
      const run = runCli(['start', '--port', '0'], {
        CHAINS_FILE: file,
        DATABASE_URL: dbUrl,
        API_CACHE: 'false',
      });
      const url = await run.listening;
      await watchHeights(
        url,
        20,
        sims.map((s) => s.options.chainId),
        run.exited,
      );
      await new Promise((r) => setTimeout(r, Number(values['warmup-seconds']) * 1000));
      // The CLI itself, under /usr/bin/time.
      const children = readFileSync(`/proc/${run.child.pid}/task/${run.child.pid}/children`, 'utf8');
      const cliPid = Number(children.trim().split(' ')[0]);
      const window = async (label: string) => {
        const stop = new AbortController();
        const lags = sims.map(() => [] as number[]);
        sims.forEach((s, i) => followBlocks(url, s.options.chainId, madeAt[i]!, lags[i]!, stop.signal));
        const cpu0 = processCpuSeconds(cliPid);
        await new Promise((r) => setTimeout(r, Number(values['live-seconds']) * 1000));
        stop.abort();
        const seconds = Number(values['live-seconds']);
        return {
          label,
          processCores: round((processCpuSeconds(cliPid) - cpu0) / seconds),
          chains: lags.map((l, i) => {
            const sorted = [...l].sort((a, b) => a - b);
            return {
              chainId: sims[i]!.options.chainId,
              blocksPerSec: round(l.length / seconds),
              lagP50Ms: Math.round(percentile(sorted, 50)),
              lagP99Ms: Math.round(percentile(sorted, 99)),
            };
          }),
        };
      };
      const normal = await window('all chains healthy');
      // Slow before down: a slow window after the outage measured chain 0's catch-up from it too.
      slowNode.ms = Number(values['slow-ms']);
      const slow = await window(`${sims[0]!.options.chainId} node ${slowNode.ms} ms slow`);
      slowNode.ms = 0;
      sims[0]!.outage('reset');
      const stalled = await window(`${sims[0]!.options.chainId} node down`);
      sims[0]!.outage(undefined);
      process.kill(-run.child.pid!, 'SIGTERM');
      await run.exited.catch(() => undefined);
      const others = (w: typeof normal, key: 'lagP99Ms' | 'blocksPerSec') =>
        w.chains.slice(1).reduce((sum, c) => sum + c[key], 0) / (w.chains.length - 1);
      return {
        bench: 'rollups-live',
        chains: values.chains,
        blockTimeMs: Number(values['block-time-ms']),
        txsPerBlock: values['live-txs'],
        seconds: Number(values['live-seconds']),
        normal,
        stalled,
        slow,
        othersLagP99Ratio: round(others(stalled, 'lagP99Ms') / others(normal, 'lagP99Ms')),
        othersThroughputRatio: round(others(stalled, 'blocksPerSec') / others(normal, 'blocksPerSec')),
        slowOthersLagP99Ratio: round(others(slow, 'lagP99Ms') / others(normal, 'lagP99Ms')),
        slowOthersThroughputRatio: round(others(slow, 'blocksPerSec') / others(normal, 'blocksPerSec')),
        load1End: load1(),
      };
    });
  } finally {
    clearInterval(clock);
    for (const p of proxies) p.close();
    await Promise.all(sims.map((s) => s.close()));
    await rm(dir, { recursive: true, force: true });
  }
}

const phases = values.phase.split(',');
if (phases.includes('backfill')) console.log(JSON.stringify(await backfill()));
if (phases.includes('live')) console.log(JSON.stringify(await live()));
