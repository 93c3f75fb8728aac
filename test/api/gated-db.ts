import type { AppError } from '../../src/shared/errors.js';
import { mapPostgresError, type Db, type Queryable } from '../../src/store/driver/db.js';

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

/** Which statements fail: those matching `sql`, after `skip` of them pass, `times` in a row. */
export interface Fault {
  sql: RegExp;
  skip?: number;
  times: number;
}

export interface FaultyDb {
  db: Db;
  /** Arms a fault; resolves once it has failed `times` statements. */
  arm(fault: Fault): Promise<void>;
}

/**
 * A database handle whose statements fail as armed, with the error the driver maps a server
 * error to (`db_error`, cause an SQLSTATE-coded error): lets a test put a read failure exactly
 * where it wants one, with no timing assumption.
 */
export function faultyDb(inner: Db): FaultyDb {
  const armed: { fault: Fault; seen: number; failed: number; done: () => void }[] = [];
  const failure = (sql: string): AppError | undefined => {
    for (const a of armed) {
      if (!a.fault.sql.test(sql) || a.failed >= a.fault.times) continue;
      a.seen += 1;
      if (a.seen <= (a.fault.skip ?? 0)) continue;
      a.failed += 1;
      if (a.failed === a.fault.times) a.done();
      return mapPostgresError(Object.assign(new Error('injected fault'), { code: 'XX000' }));
    }
    return undefined;
  };
  const db: Db = {
    ...inner,
    query<Row>(sql: string, params?: readonly unknown[]) {
      const err = failure(sql);
      return err ? Promise.reject(err) : inner.query<Row>(sql, params);
    },
    close: () => inner.close(),
  };
  return {
    db,
    arm: (fault) =>
      new Promise<void>((done) => {
        armed.push({ fault, seen: 0, failed: 0, done });
      }),
  };
}
