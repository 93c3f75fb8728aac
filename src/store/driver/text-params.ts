import { InputError } from '../../shared/errors.js';
import type { Db, Queryable } from './db.js';

/**
 * PostgreSQL `text` (and `jsonb` strings) cannot hold U+0000: a parameter carrying one fails with
 * `invalid byte sequence for encoding "UTF8": 0x00`, a 500 if nothing catches it. So no stored
 * value can ever equal such a string; readers that look names up treat it as "no such name"
 * (`canBeStored`), and the API's database handle refuses any NUL-bearing text parameter with a 400
 * before it reaches SQL (`guardTextParams`), whichever parameter or future route carries it.
 */

export const canBeStored = (text: string): boolean => !text.includes('\u0000');

function holdsNul(value: unknown): boolean {
  if (typeof value === 'string') return !canBeStored(value);
  if (Array.isArray(value)) return value.some(holdsNul);
  return false;
}

export function assertStorableParams(params: readonly unknown[] | undefined): void {
  if (params?.some(holdsNul)) {
    throw new InputError(
      'invalid_text',
      'a text parameter holds a NUL character (U+0000), which no stored value can contain',
    );
  }
}

function guardQueryable<Q extends Queryable>(q: Q): Q {
  return {
    ...q,
    async query(sql: string, params?: readonly unknown[]) {
      assertStorableParams(params);
      return q.query(sql, params);
    },
  } as Q;
}

/** The same database handle, refusing NUL-bearing text parameters with an InputError (400). */
export function guardTextParams(db: Db): Db {
  const guarded: Db = {
    ...guardQueryable(db),
    kind: db.kind,
    transaction: (fn) => db.transaction((tx) => fn(guardQueryable(tx))),
    close: () => db.close(),
  };
  if (db.queryBytes) {
    const queryBytes = db.queryBytes.bind(db);
    guarded.queryBytes = async (sql, params) => {
      assertStorableParams(params);
      return queryBytes(sql, params);
    };
  }
  if (db.withStatementTimeout) {
    const withTimeout = db.withStatementTimeout.bind(db);
    guarded.withStatementTimeout = (timeoutMs) => guardQueryable(withTimeout(timeoutMs));
  }
  return guarded;
}
