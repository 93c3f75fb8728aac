import type { Db, Queryable } from '../../src/store/driver/db.js';

/**
 * A database handle whose statements matching `holds` wait until released: lets a test keep a
 * query in flight (an expensive count, a request during shutdown) and act meanwhile, with no
 * timing assumption. `entered` resolves when the first held statement arrives.
 */
export interface GatedDb {
  db: Db;
  entered: Promise<void>;
  release(): void;
}

export function gateDb(inner: Db, holds: (sql: string) => boolean): GatedDb {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let signalEntered!: () => void;
  const entered = new Promise<void>((resolve) => {
    signalEntered = resolve;
  });
  const wrap = (q: Queryable): Queryable => ({
    ...q,
    async query<Row>(sql: string, params?: readonly unknown[]) {
      if (holds(sql)) {
        signalEntered();
        await gate;
      }
      return q.query<Row>(sql, params);
    },
  });
  const db: Db = {
    ...inner,
    ...wrap(inner),
    transaction: (fn) => inner.transaction((tx) => fn(wrap(tx))),
    close: () => inner.close(),
  };
  if (inner.withStatementTimeout) {
    const withTimeout = inner.withStatementTimeout.bind(inner);
    db.withStatementTimeout = (ms) => wrap(withTimeout(ms));
  }
  return { db, entered, release };
}
