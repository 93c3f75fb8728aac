/**
 * Ingest as operators run it (and as the SubQuery comparison measures it): the built `indexer` CLI
 * in its own process against the simulator in its own process, a fresh PostgreSQL database per run.
 * Reports blocks/s (process start to exit at --until) and the CPU seconds of the indexer and of the
 * simulator (the node's work), from /proc.
 *
 *   npm run build && npx tsx bench/ingest/cli.ts [--vm move|wasm|evm] [--blocks 10000] [--txs 3]
 *     [--stages off|on] [--runs 1] [--cli dist/src/bin/cli.js] [--cpu-prof DIR] [--node-flags '...']
 *
 * `--cli` may point at another built checkout (a before/after comparison with the same command);
 * `--cpu-prof DIR` writes the indexer's V8 CPU profile there. Needs TEST_DATABASE_URL.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { processCpuSeconds, startBenchChain, withFreshDatabase } from '../lib/harness.js';

const { values } = parseArgs({
  options: {
    vm: { type: 'string', default: 'move' },
    blocks: { type: 'string', default: '10000' },
    txs: { type: 'string', default: '3' },
    stages: { type: 'string', default: 'off' },
    runs: { type: 'string', default: '1' },
    cli: { type: 'string', default: 'dist/src/bin/cli.js' },
    'cpu-prof': { type: 'string' },
    /** Extra node flags for the indexer only, space-separated (e.g. `--max-semi-space-size=64`). */
    'node-flags': { type: 'string', default: '' },
  },
});
const adminUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** CPU seconds of a child that has exited, from `/usr/bin/time -f`. */
function parseTime(text: string): { cpu: number; maxRssMb: number } {
  const m = /^TIME (\S+) (\S+) (\d+)$/m.exec(text);
  if (!m) throw new Error(`no /usr/bin/time line in: ${text.slice(-500)}`);
  return { cpu: Number(m[1]) + Number(m[2]), maxRssMb: Math.round(Number(m[3]) / 1024) };
}

function runIndexer(env: NodeJS.ProcessEnv, blocks: number): Promise<{ cpu: number; maxRssMb: number }> {
  const nodeArgs = [
    ...values['node-flags'].split(' ').filter(Boolean),
    ...(values['cpu-prof'] ? ['--cpu-prof', '--cpu-prof-dir', values['cpu-prof']] : []),
  ];
  const child = spawn(
    '/usr/bin/time',
    ['-f', 'TIME %U %S %M', process.execPath, ...nodeArgs, path.resolve(values.cli), 'indexer'].concat([
      '--until',
      String(blocks),
      '--port',
      '0',
    ]),
    { env, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => {
      if (code !== 0) reject(new Error(`indexer exited with ${code}: ${stderr.slice(-2000)}`));
      else resolve(parseTime(stderr));
    });
  });
}

async function oneRun(run: number) {
  const blocks = Number(values.blocks);
  const vm = values.vm;
  const sim = await startBenchChain(vm, blocks, values.txs);
  try {
    return await withFreshDatabase(adminUrl, `bench_ingest_cli_${process.pid}_${run}`, async (url) => {
      const stagesOff = values.stages === 'off';
      const env = {
        ...process.env,
        RPC_URL: sim.rpc,
        REST_URL: sim.rest,
        ...(sim.jsonRpc ? { JSON_RPC_URL: sim.jsonRpc } : {}),
        DATABASE_URL: url,
        LOG_LEVEL: 'warn',
        ...(stagesOff
          ? { NFT_INDEXING: 'false', RICH_LIST: 'false', ...(vm === 'evm' ? { INTERNAL_TX: 'false' } : {}) }
          : {}),
      };
      const load1Before = readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
      const simCpu0 = processCpuSeconds(sim.pid!);
      const started = performance.now();
      const indexer = await runIndexer(env, blocks);
      const seconds = (performance.now() - started) / 1000;
      const simCpu = processCpuSeconds(sim.pid!) - simCpu0;
      return {
        bench: 'ingest-cli',
        cli: values.cli,
        nodeFlags: values['node-flags'],
        vm,
        stages: values.stages,
        blocks,
        txsPerBlock: values.txs,
        run,
        seconds: round(seconds),
        blocksPerSec: Math.round(blocks / seconds),
        indexerCpuS: round(indexer.cpu),
        indexerCpuUsPerBlock: Math.round((indexer.cpu * 1e6) / blocks),
        simCpuS: round(simCpu),
        indexerPeakRssMb: indexer.maxRssMb,
        load1Before: Number(load1Before),
        load1After: Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]),
      };
    });
  } finally {
    await sim.stop();
  }
}

function round(n: number) {
  return Math.round(n * 100) / 100;
}

for (let run = 1; run <= Number(values.runs); run++) console.log(JSON.stringify(await oneRun(run)));
