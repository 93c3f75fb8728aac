/**
 * CPU per block of the ingest core, stage by stage, without the node's or the database's time:
 * the simulator's `/block` + `/block_results` batches are recorded once (real bytes), then replayed
 * through the real client parse, prepareBlock (decode, render, accounts, rows) and, with
 * `--write`, the real block writer on a fresh PostgreSQL database. Each stage's figure is this
 * process's CPU time (process.cpuUsage) over the whole replay, in µs per block; repeated `--rounds`
 * times (the best round is reported, the least disturbed by other processes).
 *
 *   npx tsx bench/ingest/cpu.ts [--vm move|wasm|evm] [--blocks 2000] [--txs 3] [--rounds 5] [--write]
 */
import { parseArgs } from 'node:util';
import { createCometClient } from '../../src/node/cometbft.js';
import type { Transport } from '../../src/node/transport.js';
import type { RestClient } from '../../src/node/rest.js';
import type { RawBlock } from '../../src/node/types.js';
import { createAccountBytesMemo, prepareBlock, type PreparedBlock } from '../../src/ingest/prepare/block.js';
import { createIngestDecoder } from '../../src/ingest/decode/ingest-decoder.js';
import { createBlockWriter } from '../../src/store/writers/block-writer.js';
import { ensureChainMeta } from '../../src/store/writers/chain-meta.js';
import { createPostgresTestDb } from '../../test/helpers/db.js';
import { startBenchChain } from '../lib/harness.js';

const { values } = parseArgs({
  options: {
    vm: { type: 'string', default: 'move' },
    blocks: { type: 'string', default: '2000' },
    txs: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '5' },
    write: { type: 'boolean', default: false },
  },
});
const blocks = Number(values.blocks);
const CHUNK = 20;

/** The raw batch answers, as the pipeline requests them (20 heights per POST). */
async function record(): Promise<{ body: string; text: string }[]> {
  const sim = await startBenchChain(values.vm, blocks, values.txs);
  const recorded: { body: string; text: string }[] = [];
  const recorder: Transport = {
    async request(req) {
      const res = await fetch(`${sim.rpc}${req.path}`, { method: req.method, body: req.body ?? null });
      const text = await res.text();
      recorded.push({ body: req.body ?? '', text });
      return { status: res.status, text, endpoint: sim.rpc };
    },
    close: async () => undefined,
  };
  try {
    const comet = createCometClient(recorder);
    for (let from = 1; from <= blocks; from += CHUNK) await comet.fetchBlocks(heightsFrom(from));
  } finally {
    await sim.stop();
  }
  return recorded;
}

function heightsFrom(from: number): number[] {
  return Array.from({ length: Math.min(CHUNK, blocks - from + 1) }, (_, i) => from + i);
}

function cpuUs(since: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(since);
  return d.user + d.system;
}

const noRest = {
  validatorMoniker: async () => undefined,
  txsOfBlock: async () => {
    throw new Error('the replay has no REST');
  },
} as unknown as RestClient;

async function round(recorded: { body: string; text: string }[]) {
  let i = 0;
  const replay: Transport = {
    request: async () => ({ status: 200, text: recorded[i++]!.text, endpoint: 'replay' }),
    close: async () => undefined,
  };
  const comet = createCometClient(replay);
  let t = process.cpuUsage();
  const raws: RawBlock[] = [];
  for (let from = 1; from <= blocks; from += CHUNK) {
    for (const raw of await comet.fetchBlocks(heightsFrom(from))) raws.push(raw!);
  }
  const parseUs = cpuUs(t);

  const ctx = {
    decoder: createIngestDecoder({ prefix: 'init' }),
    rest: noRest,
    accountPrefix: 'init',
    monikers: new Map<string, string | undefined>(),
    accountBytes: createAccountBytesMemo('init'),
  };
  t = process.cpuUsage();
  const prepared: PreparedBlock[] = [];
  for (const raw of raws) prepared.push(await prepareBlock(raw, undefined, ctx));
  const prepareUs = cpuUs(t);

  let writeUs: number | undefined;
  if (values.write) writeUs = await writeAll(prepared);
  return { parseUs, prepareUs, writeUs };
}

async function writeAll(prepared: PreparedBlock[]): Promise<number> {
  const { db, dispose } = await createPostgresTestDb(
    process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
  );
  try {
    await ensureChainMeta(db, { chainId: 'sim', vmType: values.vm as 'move' });
    const writer = await createBlockWriter(db);
    const t = process.cpuUsage();
    let previous: string | null = null;
    for (let from = 0; from < prepared.length; from += 200) {
      const batch = prepared.slice(from, from + 200).map((b) => {
        const blockTimeMs = previous === null ? 0 : Date.parse(b.time) - Date.parse(previous);
        previous = b.time;
        return { ...b, block: { ...b.block, blockTimeMs } };
      });
      await writer.write(batch);
    }
    return cpuUs(t);
  } finally {
    await dispose();
  }
}

const recorded = await record();
const rounds: Awaited<ReturnType<typeof round>>[] = [];
for (let r = 0; r < Number(values.rounds); r++) rounds.push(await round(recorded));
const best = (k: 'parseUs' | 'prepareUs' | 'writeUs') => {
  const xs = rounds.map((r) => r[k]).filter((x): x is number => x !== undefined);
  return xs.length === 0 ? undefined : Math.round(Math.min(...xs) / blocks);
};
console.log(
  JSON.stringify({
    bench: 'ingest-cpu',
    vm: values.vm,
    blocks,
    txsPerBlock: Number(values.txs),
    rounds: rounds.length,
    usPerBlock: { fetchParse: best('parseUs'), prepare: best('prepareUs'), write: best('writeUs') },
    load1: Number((await import('node:fs')).readFileSync('/proc/loadavg', 'utf8').split(' ')[0]),
  }),
);
