/**
 * How long each stage takes to reach a chain's head after the block stream does, on a chain held
 * at a fixed head (issue 19: an upgrade halt or a stalled sequencer), on each VM. The indexer runs
 * with no last height, as in production, so nothing tells the stages the chain has stopped.
 *   npx tsx bench/ingest/derivations-halted-head.ts [--head N] [--txs SPEC] [--vm move,wasm,evm] [--timeout S]
 * Prints one JSON object per VM: when the block stream reached the head (ms from start) and, per
 * stage, ms after that until its checkpoint did (null when it had not within the timeout, with the
 * height it stood at). Needs TEST_DATABASE_URL (or defaults to local postgres).
 */
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import type { VmType } from '../../src/sim/types.js';
import type { Db } from '../../src/store/driver/db.js';
import { createPostgresTestDb } from '../../test/helpers/db.js';
import { benchIngestService, startSimProcess, type SimProcess } from '../lib/harness.js';

const { values } = parseArgs({
  options: {
    head: { type: 'string', default: '400' },
    txs: { type: 'string', default: '0-6' },
    vm: { type: 'string', default: 'move,wasm,evm' },
    timeout: { type: 'string', default: '120' },
  },
});
const baseUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const head = Number(values.head);
const timeoutMs = Number(values.timeout) * 1000;

async function stageHeights(db: Db): Promise<Map<string, number>> {
  const { rows } = await db.query<{ stream: string; height: number }>(
    "SELECT stream, height FROM checkpoint WHERE stream IN ('internal_tx', 'rich_list')",
  );
  return new Map(rows.map((r) => [r.stream, Number(r.height)]));
}

async function run(vm: VmType, sim: SimProcess) {
  const { db, dispose } = await createPostgresTestDb(baseUrl);
  const stop = new AbortController();
  try {
    const service = await benchIngestService(sim, db, vm);
    const started = performance.now();
    let blocksAt: number | undefined;
    const running = service.run({
      signal: stop.signal,
      onCommit: (p) => {
        if (p.height >= head) blocksAt ??= performance.now();
      },
    });
    // The stages the defaults run: the rich list everywhere, internal txs on EVM.
    const names = vm === 'evm' ? ['internal_tx', 'rich_list'] : ['rich_list'];
    const stages = await untilStagesAtHead(db, names, () => blocksAt, started + timeoutMs);
    stop.abort();
    await running;
    await service.close();
    const at = (ms: number | undefined) => (ms === undefined ? null : Math.round(ms));
    return {
      bench: 'stages-halted-head',
      vm,
      head,
      txsPerBlock: values.txs,
      blocksAtHeadMs: at(blocksAt === undefined ? undefined : blocksAt - started),
      stageMsAfterBlocks: Object.fromEntries(
        [...stages].map(([name, s]) => [name, at(s.at === undefined ? undefined : s.at - blocksAt!)]),
      ),
      stageHeights: Object.fromEntries([...stages].map(([name, s]) => [name, s.height])),
    };
  } finally {
    stop.abort();
    await dispose();
  }
}

/** Polls the stage checkpoints every 5 ms until each stands at the head (or the deadline passes). */
async function untilStagesAtHead(
  db: Db,
  names: string[],
  blocksAt: () => number | undefined,
  deadline: number,
) {
  const stages = new Map<string, { height: number; at?: number }>();
  for (;;) {
    const now = performance.now();
    for (const [name, height] of await stageHeights(db)) {
      const seen = stages.get(name);
      if (seen?.at !== undefined) continue;
      stages.set(name, height >= head ? { height, at: now } : { height });
    }
    const done = names.every((name) => stages.get(name)?.at !== undefined);
    if ((done && blocksAt() !== undefined) || now > deadline) return stages;
    await sleep(5);
  }
}

for (const vm of values.vm.split(',') as VmType[]) {
  const sim = await startSimProcess(['--vm', vm, '--head', String(head), '--txs-per-block', values.txs]);
  try {
    console.log(JSON.stringify(await run(vm, sim)));
  } finally {
    await sim.stop();
  }
}
