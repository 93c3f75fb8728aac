/**
 * Re-render job throughput (docs/api.md §13): plants
 * ROWS tx rows in format 1 (real node samples with their events in the omit-empty form) into a
 * fresh PostgreSQL database, marks the tx document as format 1, runs the job, and prints rows/s.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres ROWS=50000 BATCH_ROWS=2000 \
 *     npm run bench:rerender
 *
 * DATABASE_URL names the server; the bench creates and drops its own database there.
 */
import { createPostgresDb } from '../../src/store/driver/db.js';
import { migrate } from '../../src/store/migrations/migrate.js';
import { createBlockWriter } from '../../src/store/writers/block-writer.js';
import { rerenderDocuments } from '../../src/store/writers/document-rerender.js';
import { oldFormatTxCases } from '../../test/helpers/old-tx-formats.js';

const serverUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const rows = Number(process.env.ROWS ?? 50_000);
const batchRows = Number(process.env.BATCH_ROWS ?? 2_000);
const TXS_PER_BLOCK = 500;

const admin = createPostgresDb({ url: serverUrl, maxConnections: 1 });
const name = `rerender_bench_${process.pid}`;
await admin.query(`CREATE DATABASE ${name}`);
const url = new URL(serverUrl);
url.pathname = `/${name}`;
const db = createPostgresDb({ url: url.toString(), maxConnections: 2 });
try {
  await migrate(db);
  const cases = oldFormatTxCases();
  const writer = await createBlockWriter(db);
  const signer = Buffer.alloc(20, 1);
  let planted = 0;
  for (let height = 1; planted < rows; height++) {
    const count = Math.min(TXS_PER_BLOCK, rows - planted);
    const txs = Array.from({ length: count }, (_, i) => {
      const hash = Buffer.alloc(32);
      hash.writeUInt32BE(planted + i);
      return {
        hash,
        height,
        signer,
        accounts: [signer],
        msgTypes: ['x.Msg'],
        data: cases[(planted + i) % cases.length]!.old,
      };
    });
    const block = {
      height,
      hash: Buffer.alloc(32, height % 256),
      timestamp: '2025-06-01T12:00:00Z',
      blockTimeMs: 1000,
    };
    await writer.write([
      {
        block: {
          ...block,
          proposer: 'initvaloper1x',
          gasUsed: '0',
          gasWanted: '0',
          txCount: count,
          totalFee: '[]',
        },
        txs,
        evmTxs: [],
      },
    ]);
    planted += count;
  }
  await db.query(`UPDATE document_format SET version = 1 WHERE document = 'tx'`);
  const changing = cases.filter((c) => c.old !== c.expected).length;
  const [report] = await rerenderDocuments(db, { batchRows });
  if (!report) throw new Error('the job found nothing to do');
  const rate = Math.round(report.rowsRead / report.seconds);
  console.log(
    `re-render tx format 1 -> ${report.to}: ${report.rowsRead} rows (${changing}/${cases.length} of the sample texts change), ` +
      `${report.rowsChanged} rewritten, batch ${batchRows}, ${report.seconds.toFixed(2)} s, ${rate} rows/s`,
  );
} finally {
  await db.close();
  await admin.query(`DROP DATABASE ${name}`);
  await admin.close();
}
