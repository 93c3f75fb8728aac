/**
 * The live phase of `bench:rollups` (bench/ingest/rollups.ts): every chain at `blockTimeMs` ×
 * `txsPerBlock` in one `start`, each chain's head lag per window, with chain 0's node healthy,
 * `slowMs` slow or down, the windows interleaved (healthy, then `rounds` times: slow, slow
 * catch-up, healthy, down, down catch-up, healthy) so that drift (tables growing, GC) falls on both
 * sides of each comparison.
 *
 * What makes the figure a measurement of the deployment, not of this process:
 * - The simulators and the delaying proxy run in two child processes (bench/ingest/rollups-nodes.ts):
 *   the sick chain's node and proxy in one, the seven healthy nodes in the other. This process
 *   only reads the eight block streams and timestamps arrivals. (Before, all of it shared this
 *   process's event loop: whatever the proxy or the refused connections cost in the sick windows
 *   delayed every arrival's timestamp, inflating every chain's lag.)
 * - A block's making time is not polled: a live simulator's head is a function of the clock, so
 *   each chain's node reports once when its head moved and every height's moment follows from it.
 * - Each window reports the CPU and event-loop delay of `start` (through bench/lib/loop-probe.mjs,
 *   preloaded), of both node processes and of this one; the sick chain's requests through the
 *   proxy (and those failed), and the log lines of `start` for the sick chain and for the others.
 * - After a sick window, the sick chain's catch-up (until it is back within a block of its node's
 *   head) is a window of its own (`slow catch-up`, `down catch-up`), and the next healthy window
 *   starts `settleSeconds` later: a catch-up is never counted as healthy.
 * - Each sick window is compared with the mean of the healthy windows on either side of it, and
 *   consecutive healthy windows with each other (the noise floor of the same comparison).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { FaultCounts, VmType } from '../../src/sim/types.js';
import { followHostCpu, percentile, processCpuSeconds } from '../lib/harness.js';
import { LOOP_RESOLUTION_MS, readLoopDelay, type LoopDelay } from '../lib/loop-delay.js';
import {
  chainsFileEntry,
  commitTotals,
  indexedHeights,
  runCli,
  watchHeights,
  writeChainsFile,
  type CliRun,
} from '../lib/deployment-cli.js';
import type { NodesConfig, NodesSample, ReadyChain } from './rollups-nodes.js';
import { summarize, type Window } from './rollups-live-report.js';

export interface LiveOptions {
  mix: VmType[];
  chainIdOf: (vm: VmType, i: number) => string;
  blockTimeMs: number;
  txsPerBlock: string;
  seconds: number;
  slowMs: number;
  warmupSeconds: number;
  settleSeconds: number;
  rounds: number;
  cli: string;
  /** Flags for node itself in the `start` run (e.g. `--cpu-prof`), before its script. */
  nodeArgs: string[];
  /** Where to write the stderr of `start` once measured (optional). */
  startLog?: string | undefined;
  withDatabase: <T>(fn: (url: string) => Promise<T>) => Promise<T>;
}

const here = path.dirname(fileURLToPath(import.meta.url));
const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A node process: its ready chains, and a request/answer over IPC. */
async function startNodes(config: NodesConfig) {
  const child = fork(path.join(here, 'rollups-nodes.ts'), [JSON.stringify(config)], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`nodes exited with ${code}`))),
  );
  exited.catch(() => undefined);
  const next = <T>(type: string) =>
    Promise.race([
      exited,
      new Promise<T>((resolve) => {
        const onMessage = (m: { type: string }) => {
          if (m.type !== type) return;
          child.off('message', onMessage);
          resolve(m as T);
        };
        child.on('message', onMessage);
      }),
    ]);
  const { chains } = await next<{ chains: ReadyChain[] }>('ready');
  const ask = <T>(message: object, answer: string) => {
    const reply = next<T>(answer);
    child.send(message);
    return reply;
  };
  return {
    chains,
    sample: () => ask<NodesSample>({ type: 'sample' }, 'sample'),
    fault: (slowMs: number, outage: keyof FaultCounts | undefined) =>
      ask({ type: 'fault', slowMs, outage }, 'fault-set'),
    stop: (child_: ChildProcess = child) =>
      new Promise<void>((r) => (child_.once('exit', () => r()), child_.kill())),
  };
}

/** Every block each chain's stream delivers: when it arrived (epoch ms) and its lag (ms). */
function followBlocks(
  url: string,
  chain: ReadyChain,
  blockTimeMs: number,
  out: Array<[number, number]>,
  stop: AbortSignal,
) {
  const madeAt = (h: number) => chain.headAt + (h - chain.head) * blockTimeMs;
  void (async () => {
    const res = await fetch(`${url}/chains/${chain.chainId}/indexer/stream/v1/blocks`, { signal: stop });
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      const arrived = Date.now();
      buffer += decoder.decode(chunk, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = /^data: (.*)$/m.exec(frame)?.[1];
        if (!data || !frame.includes('event: block')) continue;
        const height = Number((JSON.parse(data) as { height: string }).height);
        out.push([arrived, arrived - madeAt(height)]);
      }
    }
  })().catch(() => undefined);
}

/** The event-loop delay `start` reports on SIGUSR2 (bench/lib/loop-probe.mjs) since the last one. */
async function startLoopDelay(run: CliRun, pid: number): Promise<LoopDelay> {
  const count = () => run.stderr().split('loop-delay ').length;
  const before = count();
  process.kill(pid, 'SIGUSR2');
  while (count() === before) await sleep(10);
  const last = run.stderr().slice(run.stderr().lastIndexOf('loop-delay ') + 11);
  return JSON.parse(last.slice(0, last.indexOf('\n'))) as LoopDelay;
}

export async function live(o: LiveOptions) {
  const dir = await mkdtemp(path.join(tmpdir(), 'bench-rollups-live-'));
  const ids = o.mix.map((vm, i) => o.chainIdOf(vm, i));
  const entry = (i: number) => ({ vm: o.mix[i]!, chainId: ids[i]!, seed: i + 1, proxied: i === 0 });
  const base = { blockTimeMs: o.blockTimeMs, txsPerBlock: o.txsPerBlock };
  const sick = await startNodes({ ...base, chains: [entry(0)] });
  const healthy = await startNodes({ ...base, chains: ids.slice(1).map((_, i) => entry(i + 1)) });
  const chains = [...sick.chains, ...healthy.chains];
  const headOf = (c: ReadyChain) => c.head + Math.floor((Date.now() - c.headAt) / o.blockTimeMs);
  const stop = new AbortController();
  const loop = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
  loop.enable();
  const hostCpu = followHostCpu();
  try {
    const file = await writeChainsFile(
      dir,
      chains.map((c, i) => chainsFileEntry(c.chainId, o.mix[i]!, c.urls)),
    );
    return await o.withDatabase(async (dbUrl) => {
      const probe = path.join(here, '../lib/loop-probe.mjs');
      const run = runCli(
        o.cli,
        ['start', '--port', '0'],
        { CHAINS_FILE: file, DATABASE_URL: dbUrl, API_CACHE: 'false' },
        ['--import', probe, ...o.nodeArgs],
      );
      const url = await run.listening;
      await watchHeights(url, 20, ids, run.exited);
      const arrivals = chains.map(() => [] as Array<[number, number]>);
      chains.forEach((c, i) => followBlocks(url, c, o.blockTimeMs, arrivals[i]!, stop.signal));
      // Every chain caught up from its start (within a block of its node's head), then the warm-up.
      const atHeads = async () => {
        const heights = await indexedHeights(url);
        return chains.every((c) => (heights.get(c.chainId) ?? 0) >= headOf(c) - 1);
      };
      while (!(await atHeads())) await sleep(200);
      await sleep(o.warmupSeconds * 1000);
      // The CLI itself, under /usr/bin/time.
      const children = readFileSync(`/proc/${run.child.pid}/task/${run.child.pid}/children`, 'utf8');
      const cliPid = Number(children.trim().split(' ')[0]);
      const sickLogTag = `"chain_id":"${ids[0]}"`;
      const logLines = () => {
        const lines = run.stdout().split('\n');
        const sickLines = lines.filter((l) => l.includes(sickLogTag)).length;
        return { sick: sickLines, others: lines.filter((l) => l.includes('"chain_id"')).length - sickLines };
      };
      const snapshot = async () => ({
        at: Date.now(),
        startCpu: processCpuSeconds(cliPid),
        startLoop: await startLoopDelay(run, cliPid),
        benchCpu: (process.cpuUsage().user + process.cpuUsage().system) / 1e6,
        benchLoop: readLoopDelay(loop),
        sick: await sick.sample(),
        healthy: await healthy.sample(),
        logs: logLines(),
        commits: await commitTotals(url),
      });
      const windows: Window[] = [];
      const measure = async (kind: Window['kind'], until: () => Promise<unknown>) => {
        const a = await snapshot();
        await until();
        const b = await snapshot();
        const s = (b.at - a.at) / 1000;
        const inWindow = (l: Array<[number, number]>) =>
          l.filter(([t]) => t >= a.at && t < b.at).map(([, lag]) => lag);
        const lags = arrivals.map(inWindow);
        // Commits in the window: the sick chain's, and the other chains' together.
        const commitsOf = (chainIds: string[]) => {
          let [count, seconds] = [0, 0];
          for (const id of chainIds) {
            const [x, y] = [a.commits.get(id), b.commits.get(id)];
            count += (y?.count ?? 0) - (x?.count ?? 0);
            seconds += (y?.seconds ?? 0) - (x?.seconds ?? 0);
          }
          return { perSec: round(count / s, 1), meanMs: round((seconds / Math.max(count, 1)) * 1000, 1) };
        };
        windows.push({
          kind,
          startedAt: a.at,
          seconds: round(s, 1),
          commits: { sick: commitsOf(ids.slice(0, 1)), others: commitsOf(ids.slice(1)) },
          lags,
          chains: lags.map((l, i) => {
            const sorted = [...l].sort((x, y) => x - y);
            return {
              chainId: ids[i]!,
              blocksPerSec: round(l.length / s),
              lagP50Ms: Math.round(percentile(sorted, 50)),
              lagP99Ms: Math.round(percentile(sorted, 99)),
            };
          }),
          sickNode: {
            requestsPerSec: round((b.sick.proxyRequests - a.sick.proxyRequests) / s, 1),
            failedPerSec: round((b.sick.proxyFailures - a.sick.proxyFailures) / s, 1),
            startLogLinesPerSec: round((b.logs.sick - a.logs.sick) / s, 2),
          },
          othersStartLogLinesPerSec: round((b.logs.others - a.logs.others) / s, 2),
          cores: {
            start: round((b.startCpu - a.startCpu) / s),
            sickNode: round((b.sick.cpuSeconds - a.sick.cpuSeconds) / s),
            healthyNodes: round((b.healthy.cpuSeconds - a.healthy.cpuSeconds) / s),
            bench: round((b.benchCpu - a.benchCpu) / s),
          },
          loopDelayMs: {
            start: b.startLoop,
            sickNode: b.sick.loopDelayMs,
            healthyNodes: b.healthy.loopDelayMs,
            bench: b.benchLoop,
          },
          host: hostCpu.between(a.at, b.at),
          load1: Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]),
        });
      };
      const elapse = () => sleep(o.seconds * 1000);
      /** Until the sick chain is back within a block of its node's head. */
      const caughtUp = async () => {
        while (((await indexedHeights(url)).get(ids[0]!) ?? 0) < headOf(chains[0]!) - 1) await sleep(100);
      };
      await measure('healthy', elapse);
      for (let r = 0; r < o.rounds; r++) {
        for (const [kind, slowMs, outage] of [
          ['slow', o.slowMs, undefined],
          ['down', 0, 'reset'],
        ] as const) {
          await sick.fault(slowMs, outage);
          await measure(kind, elapse);
          await sick.fault(0, undefined);
          // The sick chain's catch-up is a window of its own (the others meanwhile), not a healthy one.
          await measure(`${kind} catch-up`, caughtUp);
          await sleep(o.settleSeconds * 1000);
          await measure('healthy', elapse);
        }
      }
      if (o.startLog) await writeFile(o.startLog, run.stdout() + run.stderr());
      process.kill(-run.child.pid!, 'SIGTERM');
      await run.exited.catch(() => undefined);
      return summarize(windows, { ...o, sickChain: ids[0]! });
    });
  } finally {
    stop.abort();
    loop.disable();
    hostCpu.stop();
    await Promise.all([sick.stop(), healthy.stop()]);
    await rm(dir, { recursive: true, force: true });
  }
}
