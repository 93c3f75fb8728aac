/**
 * What bench/stream/subscribers.ts's subscribers should have received for the heights committed in the
 * measured window, counted from the database with SQL of its own (not the API's matcher): an
 * unfiltered stream gets every tx, a `msgs` stream every tx with one of its types, an account
 * stream every tx the account is in. Tells a server that kept up from one that fell behind.
 */
import pg from 'pg';

export interface Demand {
  txs: number;
  /** Events owed to all the subscribers together for those heights. */
  events: number;
  /** Events owed to each subscriber (in `paths` order). */
  perPath: number[];
  eventsPerSec: number;
  mbPerSec: number;
}

/** `paths` are the subscribers' request paths; heights (fromHeight, toHeight] were committed in `seconds`. */
export async function streamDemand(
  dbUrl: string,
  paths: readonly string[],
  window: { fromHeight: number; toHeight: number; seconds: number },
): Promise<Demand> {
  const db = new pg.Client({ connectionString: dbUrl });
  await db.connect();
  try {
    const range = (
      await db.query<{ lo: string | null; hi: string | null; n: string; bytes: number | null }>(
        `SELECT min(sequence) AS lo, max(sequence) AS hi, count(*) AS n, avg(length(data))::float8 AS bytes
           FROM tx WHERE height > $1 AND height <= $2`,
        [window.fromHeight, window.toHeight],
      )
    ).rows[0]!;
    const txs = Number(range.n);
    if (txs === 0) return { txs: 0, events: 0, perPath: paths.map(() => 0), eventsPerSec: 0, mbPerSec: 0 };
    const bounds = [range.lo, range.hi];
    const byType = await countsBy(
      db,
      `SELECT d.msg_type AS k, count(DISTINCT m.sequence) AS n FROM tx_msg_types m
         JOIN msg_type_dict d ON d.id = m.msg_type_id WHERE m.sequence BETWEEN $1 AND $2 GROUP BY d.msg_type`,
      bounds,
    );
    const byAccount = await countsBy(
      db,
      `SELECT encode(a.account, 'hex') AS k, count(DISTINCT t.sequence) AS n FROM tx_accounts t
         JOIN account_dict a ON a.id = t.account_id WHERE t.sequence BETWEEN $1 AND $2 GROUP BY a.account`,
      bounds,
    );
    const perPath = paths.map((path) => {
      const query = new URL(path, 'http://x').searchParams;
      const account = query.get('account');
      const msgs = query.get('msgs');
      if (account !== null) return byAccount.get(account.replace(/^0x/, '').toLowerCase()) ?? 0;
      if (msgs !== null) return byType.get(msgs) ?? 0; // one type per stream here
      return txs;
    });
    const events = perPath.reduce((a, b) => a + b, 0);
    const eventsPerSec = events / window.seconds;
    return {
      txs,
      events,
      perPath,
      eventsPerSec: Math.round(eventsPerSec),
      mbPerSec: (eventsPerSec * (range.bytes ?? 0)) / 1e6,
    };
  } finally {
    await db.end();
  }
}

async function countsBy(db: pg.Client, sql: string, params: unknown[]): Promise<Map<string, number>> {
  const { rows } = await db.query<{ k: string; n: string }>(sql, params);
  return new Map(rows.map((r) => [r.k, Number(r.n)]));
}
