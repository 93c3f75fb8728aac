/**
 * Re-render of txs stored undecoded (docs/api.md §14): a simulator Move chain of BLOCKS blocks of
 * 20 txs whose every tx from height 1 carries a message type this release lacks is indexed into a
 * fresh PostgreSQL database (each tx stored undecoded), then re-rendered with a registry that knows
 * the type. Prints one object: ingest seconds, rows/s of the job and the job's own CPU per row
 * (PostgreSQL's CPU not included).
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres BLOCKS=250 BATCH_ROWS=2000 \
 *     npm run bench:rerender-undecoded
 *
 * DATABASE_URL names the server; the bench creates and drops its own database there.
 */
import { createProtoRegistry } from '../../src/shared/proto/registry.js';
import { UPGRADE_MSG_SCHEMA } from '../../src/sim/chain/upgrade.js';
import { createSimulator } from '../../src/sim/simulator.js';
import { createPostgresDb } from '../../src/store/driver/db.js';
import { migrate } from '../../src/store/migrations/migrate.js';
import { rerenderUndecoded } from '../../src/store/writers/undecoded-rerender.js';
import { ingestFrom } from '../../test/helpers/ingest.js';

const serverUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const blocks = Number(process.env.BLOCKS ?? 250);
const batchRows = Number(process.env.BATCH_ROWS ?? 2_000);
const TXS_PER_BLOCK = 20;

const admin = createPostgresDb({ url: serverUrl, maxConnections: 1 });
const name = `rerender_undecoded_bench_${process.pid}`;
await admin.query(`CREATE DATABASE ${name}`);
const url = new URL(serverUrl);
url.pathname = `/${name}`;
const db = createPostgresDb({ url: url.toString(), maxConnections: 2 });
const sim = createSimulator({
  vm: 'move',
  head: blocks,
  txsPerBlock: String(TXS_PER_BLOCK),
  upgrade: { height: 1, every: 1 },
  fastSignatures: true,
  rpcPort: 0,
  restPort: 0,
  jsonRpcPort: 0,
});
try {
  await migrate(db);
  const urls = await sim.listen();
  let started = performance.now();
  await ingestFrom({ db, vm: 'move', urls, untilHeight: blocks });
  const ingestSeconds = (performance.now() - started) / 1000;
  const registry = createProtoRegistry([UPGRADE_MSG_SCHEMA]);
  started = performance.now();
  const cpu = process.cpuUsage();
  const report = await rerenderUndecoded(db, { registry: () => registry, batchRows });
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  const rows = report?.rowsRerendered ?? 0;
  console.log(
    JSON.stringify({
      txs: blocks * TXS_PER_BLOCK,
      batchRows,
      ingestSeconds: Number(ingestSeconds.toFixed(1)),
      report,
      rowsPerSecond: Math.round(rows / seconds),
      jobCpuMsPerRow: Number(((used.user + used.system) / 1000 / Math.max(rows, 1)).toFixed(3)),
    }),
  );
} finally {
  await sim.close();
  await db.close();
  await admin.query(`DROP DATABASE ${name}`);
  await admin.close();
}
