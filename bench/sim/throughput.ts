/**
 * Simulator throughput over HTTP: CometBFT JSON-RPC batches of `block` + `block_results`.
 * The simulator runs in its own process (one core); this process is the client.
 * Prints one JSON object. Usage: npm run bench:sim [-- --blocks 3000 --batch 20 --concurrency 4]
 */
import { readFileSync } from 'node:fs';
import { Agent, request } from 'undici';
import { startSimProcess } from '../lib/harness.js';

/** CPU seconds (user + system) the simulator process has used so far (Linux /proc), or NaN. */
function cpuSeconds(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

interface Args {
  blocks: number;
  batch: number;
  concurrency: number;
}

function parseArgs(argv: string[]): Args {
  const get = (name: string, fallback: number): number => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 && argv[i + 1] !== undefined ? Number(argv[i + 1]) : fallback;
  };
  return { blocks: get('blocks', 3000), batch: get('batch', 20), concurrency: get('concurrency', 4) };
}

async function run(
  rpc: string,
  from: number,
  args: Args,
): Promise<{ seconds: number; bytes: number; blocks: number }> {
  const agent = new Agent({ connections: args.concurrency, pipelining: 1 });
  let next = from;
  const end = from + args.blocks;
  let bytes = 0;
  const worker = async (): Promise<void> => {
    while (next < end) {
      const start = next;
      next = Math.min(end, next + args.batch);
      const calls = [];
      for (let h = start; h < next; h++) {
        calls.push({ jsonrpc: '2.0', id: 2 * h, method: 'block', params: { height: String(h) } });
        calls.push({ jsonrpc: '2.0', id: 2 * h + 1, method: 'block_results', params: { height: String(h) } });
      }
      const res = await request(rpc, {
        method: 'POST',
        body: JSON.stringify(calls),
        dispatcher: agent,
        headers: { 'content-type': 'application/json' },
      });
      const text = await res.body.text();
      if (res.statusCode !== 200 || text.includes('"error"'))
        throw new Error(`bad answer at ${start}: ${text.slice(0, 200)}`);
      bytes += Buffer.byteLength(text);
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: args.concurrency }, worker));
  const seconds = (performance.now() - t0) / 1000;
  await agent.close();
  return { seconds, bytes, blocks: args.blocks };
}

const args = parseArgs(process.argv.slice(2));
const results: Record<string, unknown>[] = [];
for (const txsPerBlock of ['3', '100']) {
  const blocks = txsPerBlock === '3' ? args.blocks : Math.max(100, Math.floor(args.blocks / 10));
  const sim = await startSimProcess([
    '--vm',
    'move',
    '--head',
    '10000000',
    '--txs-per-block',
    txsPerBlock,
    '--fast-signatures',
  ]);
  const { rpc, pid } = sim;
  try {
    // Warm: heights still in the simulator's per-height cache (bounded at ~12,000 txs).
    const a = { ...args, blocks: Math.min(blocks, 1000, Math.floor(10_000 / (Number(txsPerBlock) + 1))) };
    const cpu0 = cpuSeconds(pid);
    const cold = { ...(await run(rpc, 5_000_000, { ...args, blocks })), cpu: 0 };
    const cpu1 = cpuSeconds(pid);
    cold.cpu = cpu1 - cpu0;
    const warmFrom = 5_000_000 + blocks - a.blocks;
    const warm = { ...(await run(rpc, warmFrom, a)), cpu: 0 };
    warm.cpu = cpuSeconds(pid) - cpu1;
    for (const [phase, r] of [
      ['cold', cold],
      ['warm', warm],
    ] as const) {
      results.push({
        txsPerBlock: Number(txsPerBlock),
        phase,
        blocks: r.blocks,
        blocksPerSec: Math.round(r.blocks / r.seconds),
        txsPerSec: Math.round((r.blocks * Number(txsPerBlock)) / r.seconds),
        mbPerSec: Number((r.bytes / 1e6 / r.seconds).toFixed(1)),
        bytesPerBlock: Math.round(r.bytes / r.blocks),
        /** Blocks per CPU-second of the simulator process: its single-core rate, whatever the load. */
        blocksPerSimCpuSecond: Number.isFinite(r.cpu) && r.cpu > 0 ? Math.round(r.blocks / r.cpu) : null,
      });
    }
  } finally {
    await sim.stop();
  }
}
console.log(
  JSON.stringify(
    {
      bench: 'sim',
      transport: 'CometBFT JSON-RPC batch POST (block + block_results)',
      batchHeights: args.batch,
      concurrency: args.concurrency,
      signatures: 'fast',
      results,
    },
    null,
    2,
  ),
);
