/**
 * The bulk builder's per-block work (bench/scale/bulk-source.ts: the simulator and the ingest's
 * preparer, packing included) in this one thread, without PostgreSQL: its CPU per 1,000 blocks and,
 * with `--profile FILE`, a V8 CPU profile of just the measured heights (open it in Chrome DevTools).
 * The heights' neighbourhood is prepared once first, so caches and the simulator's NFT index are warm.
 *
 *   npx tsx bench/scale/bulk-profile.ts [--from 1000] [--blocks 400] [--profile /tmp/bulk.cpuprofile]
 */
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { SCALE_CHAIN, round, simArgs } from './build.js';
import { simFlagsOf } from './bulk-prepare.js';
import { createSimPreparer } from './bulk-source.js';

const CHUNK = 20;

const { values: args } = parseArgs({
  options: {
    from: { type: 'string', default: '1000' },
    blocks: { type: 'string', default: '400' },
    profile: { type: 'string' },
  },
});
const from = Number(args.from);
const blocks = Number(args.blocks);
const preparer = createSimPreparer({
  simFlags: simFlagsOf(simArgs(from + blocks)),
  vm: SCALE_CHAIN.vm,
  chainId: `mini${SCALE_CHAIN.vm}-1`,
  accountPrefix: 'init',
});
const chunk = (start: number) => Array.from({ length: CHUNK }, (_, i) => start + i);
await preparer.prepare(chunk(Math.max(1, from - CHUNK)));

const session = args.profile === undefined ? undefined : new Session();
if (session) {
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 500 });
  await session.post('Profiler.start');
}
const load1 = loadavg()[0];
const cpu0 = process.cpuUsage();
let txs = 0;
for (let h = from; h < from + blocks; h += CHUNK)
  for (const b of await preparer.prepare(chunk(h))) txs += b?.txs.length ?? 0;
const cpu = process.cpuUsage(cpu0);
if (session) {
  const { profile } = await session.post('Profiler.stop');
  await writeFile(args.profile!, JSON.stringify(profile));
  session.disconnect();
}
const seconds = (cpu.user + cpu.system) / 1e6;
process.stdout.write(
  `${JSON.stringify({
    bench: 'scale-bulk-profile',
    from,
    blocks,
    txs,
    cpuSecPer1000Blocks: round((seconds / blocks) * 1000),
    machine: { loadAvg1mBefore: load1, loadAvg1mAfter: loadavg()[0] },
  })}\n`,
);
await preparer.close();
