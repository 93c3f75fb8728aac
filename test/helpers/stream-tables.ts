import type { Db, Queryable } from '../../src/store/driver/db.js';
import type { SimulatorUrls, VmType } from '../../src/sim/types.js';
import { ingestFrom } from './ingest.js';
import { dataTables } from './table-copy.js';

/** Which tables each checkpoint stream writes; `blocks` names the block stream's own. */
export interface StreamTables {
  blocks: string;
  tables: Map<string, Set<string>>;
}

/**
 * Indexes heights 1..head in phases, so what each stream writes can be seen: the block stream
 * alone first (every stage off), then each stage alone, then everything as configured by default.
 * A phase's stream is the checkpoint row it created, its tables those whose rows it changed. The
 * last phase must change nothing: a stage that no phase ran alone would show up there.
 */
export async function ingestByStream(args: {
  db: Db;
  vm: VmType;
  urls: SimulatorUrls;
  head: number;
}): Promise<StreamTables> {
  const alone = [
    { internalTx: false, richList: false },
    ...(args.vm === 'evm' ? [{ internalTx: true, richList: false }] : []),
    { internalTx: false, richList: true },
  ];
  const tables = new Map<string, Set<string>>();
  for (const stages of alone) {
    const before = await fingerprint(args.db);
    await ingestFrom({ db: args.db, vm: args.vm, urls: args.urls, untilHeight: args.head, stages });
    const after = await fingerprint(args.db);
    const streams = [...after.streams].filter((s) => !before.streams.has(s));
    if (streams.length !== 1) throw new Error(`a phase created streams [${streams.join(', ')}], not one`);
    tables.set(streams[0]!, changedTables(before.rows, after.rows));
  }
  const settled = await fingerprint(args.db);
  await ingestFrom({ db: args.db, vm: args.vm, urls: args.urls, untilHeight: args.head });
  const unknown = changedTables(settled.rows, (await fingerprint(args.db)).rows);
  if (unknown.size > 0) throw new Error(`a stage no phase ran alone wrote [${[...unknown].join(', ')}]`);
  return { blocks: [...tables.keys()][0]!, tables };
}

/** Each table's row count and a hash of its rows, and the checkpoint streams. */
async function fingerprint(db: Queryable): Promise<{ rows: Map<string, string>; streams: Set<string> }> {
  const rows = new Map<string, string>();
  for (const table of await dataTables(db)) {
    const { rows: r } = await db.query<{ n: number; h: string }>(
      `SELECT count(*)::int AS n, md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) AS h FROM "${table}" t`,
    );
    rows.set(table, `${r[0]!.n}:${r[0]!.h}`);
  }
  const { rows: s } = await db.query<{ stream: string }>('SELECT stream FROM checkpoint');
  return { rows, streams: new Set(s.map((x) => x.stream)) };
}

function changedTables(before: Map<string, string>, after: Map<string, string>): Set<string> {
  return new Set([...after].filter(([table, print]) => before.get(table) !== print).map(([t]) => t));
}
