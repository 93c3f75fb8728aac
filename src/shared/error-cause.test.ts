import { describe, expect, it } from 'vitest';
import { summarizeError } from './error-cause.js';
import { AppError } from './errors.js';

describe('summarizeError', () => {
  it("names the AppError's code and its driver cause, masks credentials and leaves out the detail", () => {
    const driver = Object.assign(new Error('connect to postgres://app:s3cret@db:5432/x failed'), {
      code: 'ECONNREFUSED',
      detail: 'Key (account)=(\\x00ff) already exists.',
    });
    const summary = summarizeError(new AppError('db_unavailable', 'database unavailable', { cause: driver }));
    expect(summary).toEqual({
      code: 'db_unavailable',
      message: 'database unavailable',
      cause: { code: 'ECONNREFUSED', message: 'connect to postgres://***@db:5432/x failed' },
    });
  });

  it('takes anything thrown, cuts long messages and stops two causes down', () => {
    expect(summarizeError('plain')).toEqual({ message: 'plain' });
    expect(summarizeError(new Error('x'.repeat(500))).message).toHaveLength(200);
    const deep = new Error('a', {
      cause: new Error('b', { cause: new Error('c', { cause: new Error('d') }) }),
    });
    expect(summarizeError(deep)).toEqual({ message: 'a', cause: { message: 'b', cause: { message: 'c' } } });
  });
});
