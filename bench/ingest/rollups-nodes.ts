/**
 * The simulated nodes of `bench:rollups --phase live`, in a child process of the bench (forked with
 * IPC; argv[2] is a JSON `NodesConfig`): the simulators, and the delaying proxy in front of the
 * sick chain, serve from here so that the bench's own event loop only timestamps block arrivals.
 *
 * Messages: the child sends `{ type: 'ready', chains }` once listening (each chain's URLs and the
 * moment its head last moved, from which every height's making time follows); the parent sends
 * `{ type: 'fault', slowMs, outage }` (answered `{ type: 'fault-set' }`) and `{ type: 'sample' }`
 * (answered with this process's CPU seconds, its event-loop delay since the last sample, and the
 * requests the proxies forwarded and failed so far).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createSimulator } from '../../src/sim/simulator.js';
import type { FaultCounts, Simulator, SimulatorUrls, VmType } from '../../src/sim/types.js';
import { LOOP_RESOLUTION_MS, readLoopDelay, type LoopDelay } from '../lib/loop-delay.js';

export interface NodesConfig {
  chains: Array<{ vm: VmType; chainId: string; seed: number; proxied: boolean }>;
  blockTimeMs: number;
  txsPerBlock: string;
}

/** A chain's node as the parent sees it: `madeAt(h) = headAt + (h - head) * blockTimeMs` (epoch ms). */
export interface ReadyChain {
  chainId: string;
  urls: SimulatorUrls;
  head: number;
  headAt: number;
}

export interface NodesSample {
  type: 'sample';
  cpuSeconds: number;
  loopDelayMs: LoopDelay;
  proxyRequests: number;
  proxyFailures: number;
}

type ParentMessage =
  { type: 'fault'; slowMs: number; outage: keyof FaultCounts | undefined } | { type: 'sample' };

const proxyCounts = { requests: 0, failures: 0 };

/** A proxy that answers every request `delay.ms` late (0: at once): a slow node without a restart. */
async function delayingProxy(target: string, delay: { ms: number }): Promise<string> {
  const server = http.createServer((req, res) => {
    proxyCounts.requests++;
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
        upstream.on('error', () => {
          proxyCounts.failures++;
          res.destroy();
        });
        upstream.end(Buffer.concat(chunks));
      }, delay.ms);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/**
 * The epoch ms at which the simulator's head last moved, found by watching it move once (a live
 * simulator's head is a pure function of the clock, so every later height's moment follows).
 */
function headMoment(sim: Simulator): { head: number; headAt: number } {
  const first = sim.head();
  for (;;) {
    const now = Date.now();
    const head = sim.head();
    if (head !== first) return { head, headAt: now };
  }
}

async function main() {
  const config = JSON.parse(process.argv[2]!) as NodesConfig;
  const loop = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
  loop.enable();
  const delay = { ms: 0 };
  const sims = config.chains.map((c) =>
    createSimulator({
      vm: c.vm,
      chainId: c.chainId,
      seed: c.seed,
      head: 10,
      live: true,
      blockTimeMs: config.blockTimeMs,
      txsPerBlock: config.txsPerBlock,
      fastSignatures: true,
      rpcPort: 0,
      restPort: 0,
      jsonRpcPort: 0,
    }),
  );
  const chains: ReadyChain[] = [];
  for (const [i, sim] of sims.entries()) {
    const own = await sim.listen();
    let urls = own;
    if (config.chains[i]!.proxied) {
      const [rpc, rest, jsonRpc] = await Promise.all(
        [own.rpc, own.rest, ...(own.jsonRpc ? [own.jsonRpc] : [])].map((u) => delayingProxy(u, delay)),
      );
      urls = { rpc: rpc!, rest: rest!, ...(jsonRpc ? { jsonRpc } : {}) };
    }
    chains.push({ chainId: sim.options.chainId, urls, ...headMoment(sim) });
  }
  process.on('message', (m: ParentMessage) => {
    if (m.type === 'fault') {
      delay.ms = m.slowMs;
      for (const [i, sim] of sims.entries()) if (config.chains[i]!.proxied) sim.outage(m.outage);
      process.send!({ type: 'fault-set' });
    } else {
      const cpu = process.cpuUsage();
      const sample: NodesSample = {
        type: 'sample',
        cpuSeconds: (cpu.user + cpu.system) / 1e6,
        loopDelayMs: readLoopDelay(loop),
        proxyRequests: proxyCounts.requests,
        proxyFailures: proxyCounts.failures,
      };
      process.send!(sample);
    }
  });
  // The parent going away (IPC closed) ends the nodes.
  process.on('disconnect', () => process.exit(0));
  process.send!({ type: 'ready', chains });
}

if (process.send) await main();
