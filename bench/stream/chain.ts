/**
 * What the stream benches (bench/stream/subscribers.ts, bench/ingest/minievm-live.ts) share about
 * the chain under them: the commits the indexer announces, the accounts and message types seen on
 * it, the subscribers' request paths built from those, and the API's own stream counters.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { COMMIT_CHANNEL } from '../../src/shared/commit-feed.js';
import { nowMs } from './clients.js';

export interface Commit {
  height: number;
  /** The checkpoint's tx sequence after this commit (the last tx it brought, or an earlier one). */
  txSequence: number;
  /** The checkpoint's `updated_at`: the writer's transaction start. */
  updatedAtMs: number;
  /** When the bench received the commit's NOTIFY (a lower bound on when it was visible). */
  notifiedMs: number;
}

export interface CommitFollower {
  commits: Commit[];
  height(): number;
  close(): Promise<void>;
}

/**
 * Every commit the indexer announces (its NOTIFY carries `<schema>:<height>`), with the checkpoint's
 * tx_sequence and updated_at read right after.
 */
export async function followCommits(url: string): Promise<CommitFollower> {
  const listener = new pg.Client({ connectionString: url });
  await listener.connect();
  const commits: Commit[] = [];
  let reading = Promise.resolve();
  listener.on('notification', (message) => {
    const notifiedMs = nowMs();
    const height = Number(message.payload?.slice(message.payload.lastIndexOf(':') + 1));
    reading = reading
      .then(async () => {
        if (height <= (commits.at(-1)?.height ?? 0)) return;
        const { rows } = await listener.query<{ h: string; s: string; at: number }>(
          `SELECT height AS h, tx_sequence AS s, (extract(epoch FROM updated_at) * 1000)::float8 AS at
             FROM checkpoint WHERE stream = 'blocks'`,
        );
        const row = rows[0]!;
        if (Number(row.h) === height) {
          commits.push({ height, txSequence: Number(row.s), updatedAtMs: row.at, notifiedMs });
          return;
        }
        // A later commit already moved the checkpoint: this one's last tx from the tx table; its
        // transaction start is unknown (at most the notification's arrival).
        const last = await listener.query<{ s: string }>(
          'SELECT sequence AS s FROM tx WHERE height <= $1 ORDER BY height DESC, sequence DESC LIMIT 1',
          [height],
        );
        commits.push({
          height,
          txSequence: Number(last.rows[0]?.s ?? 0),
          updatedAtMs: notifiedMs,
          notifiedMs,
        });
      })
      .catch(() => undefined); // a notification that arrives as the bench closes the listener
  });
  await listener.query(`LISTEN ${COMMIT_CHANNEL}`);
  return {
    commits,
    height: () => commits.at(-1)?.height ?? 0,
    close: () => listener.end(),
  };
}

/**
 * The first commit whose `key` reached `value` (commits are in height order; tx sequences grow
 * with it): the commit that brought a height, or a tx by its sequence. Undefined if none yet.
 */
export function firstCommit(
  commits: Commit[],
  key: 'height' | 'txSequence',
  value: number,
): Commit | undefined {
  let lo = 0;
  let hi = commits.length - 1;
  if (hi < 0 || commits[hi]![key] < value) return undefined;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (commits[mid]![key] >= value) hi = mid;
    else lo = mid + 1;
  }
  return commits[lo];
}

/** The accounts seen on chain (busiest first) and its message types (most frequent first). */
export interface ChainSample {
  accounts: string[];
  msgTypes: string[];
  /** Each type's share of txs, in `msgTypes` order. */
  typeShares: number[];
}

export async function sampleChain(dbUrl: string): Promise<ChainSample> {
  const db = new pg.Client({ connectionString: dbUrl });
  await db.connect();
  try {
    const accounts = (
      await db.query<{ a: Buffer }>(
        'SELECT d.account AS a FROM account_dict d JOIN tx_accounts t ON t.account_id = d.id GROUP BY d.account ORDER BY count(*) DESC',
      )
    ).rows.map((r) => `0x${r.a.toString('hex')}`);
    // Busiest first, with each type's share of txs (the msgs streams' demand depends on it).
    const typeCounts = (
      await db.query<{ m: string; share: number }>(
        `SELECT d.msg_type AS m, (count(*)::float8 / (SELECT count(*) FROM tx)) AS share
           FROM tx_msg_types t JOIN msg_type_dict d ON d.id = t.msg_type_id GROUP BY d.msg_type ORDER BY count(*) DESC`,
      )
    ).rows;
    return { accounts, msgTypes: typeCounts.map((r) => r.m), typeShares: typeCounts.map((r) => r.share) };
  } finally {
    await db.end();
  }
}

/**
 * `n` paths on /indexer/stream/v1/txs: by account (even: seen on chain, busiest first; odd: never
 * seen), by msgs, then unfiltered, in the shares of `mix` ("0.9,0.09,0.01"). `msgs`: the types of
 * the msgs streams (comma-separated; `rarest`: all on the least frequent type; default every type
 * seen, round-robin).
 */
export function subscriberPaths(n: number, chain: ChainSample, mix: string, msgs?: string): string[] {
  const base = '/indexer/stream/v1/txs';
  const [accountShare, msgsShare] = mix.split(',').map(Number) as [number, number];
  const byAccount = Math.round(n * accountShare);
  const byMsgs = Math.round(n * msgsShare);
  const types = msgs === 'rarest' ? [chain.msgTypes.at(-1)!] : msgs ? msgs.split(',') : chain.msgTypes;
  return Array.from({ length: n }, (_, i) => {
    if (i < byAccount) {
      const account =
        i % 2 === 0
          ? chain.accounts[(i / 2) % chain.accounts.length]!
          : `0x${randomBytes(20).toString('hex')}`;
      return `${base}?account=${account}`;
    }
    if (i < byAccount + byMsgs) return `${base}?msgs=${encodeURIComponent(types[i % types.length]!)}`;
    return base;
  });
}

/** Sums of the API's slow-close and hub read-failure counters, from its /metrics text. */
export async function streamCounters(url: string): Promise<{ slowCloses: number; readFailures: number }> {
  const text = await fetch(url).then((r) => r.text());
  const sum = (name: string) =>
    text
      .split('\n')
      .filter((line) => line.startsWith(name))
      .reduce((n, line) => n + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
  return {
    slowCloses: sum('rollup_indexer_stream_slow_closes_total'),
    readFailures: sum('rollup_indexer_stream_read_failures_total'),
  };
}
