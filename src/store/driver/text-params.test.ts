import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InputError } from '../../shared/errors.js';
import { testDbFactories } from '../../../test/helpers/db.js';
import type { Db } from './db.js';
import { canBeStored, guardTextParams } from './text-params.js';

describe.each(testDbFactories())('NUL-bearing text parameters on $name', (factory) => {
  let db: Db;
  let dispose: () => Promise<void>;
  beforeAll(async () => {
    ({ db, dispose } = await factory.create());
  });
  afterAll(async () => {
    await dispose?.();
  });

  it('fail in the database itself (the 500 this guards against)', async () => {
    await expect(db.query('SELECT $1::text AS t', ['a\u0000b'])).rejects.toThrow();
  });

  it('are refused with an InputError before reaching SQL, in arrays, transactions and timed sessions', async () => {
    const guarded = guardTextParams(db);
    const nul = 'cosmos.bank.v1beta1.MsgSend\u0000';
    await expect(guarded.query('SELECT $1::text AS t', [nul])).rejects.toBeInstanceOf(InputError);
    await expect(guarded.query('SELECT $1::text[] AS t', [['ok', nul]])).rejects.toThrow(/NUL character/);
    await expect(guarded.transaction((tx) => tx.query('SELECT $1::text AS t', [nul]))).rejects.toBeInstanceOf(
      InputError,
    );
    const timed = guarded.withStatementTimeout?.(1000);
    if (timed) await expect(timed.query('SELECT $1::text AS t', [nul])).rejects.toBeInstanceOf(InputError);
    // Everything else passes through unchanged.
    const { rows } = await guarded.query<{ t: string }>('SELECT $1::text AS t', ['a\u0001b']);
    expect(rows[0]?.t).toBe('a\u0001b');
    expect(canBeStored('x')).toBe(true);
    expect(canBeStored('\u0000')).toBe(false);
  });
});
