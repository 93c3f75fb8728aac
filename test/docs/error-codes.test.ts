import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/shared/error-codes.js';
import { REPO_ROOT } from '../helpers/repo-root.js';
import { listTextFiles } from './citations.js';
import { renderErrorCodeTable, tableInDocs, thrownCodeLiterals } from './error-codes.js';

const REGISTRY_FILE = path.join('src', 'shared', 'error-codes.ts');
const sources = listTextFiles(['src'])
  .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts') && file !== REGISTRY_FILE)
  .map((file) => ({ file, text: readFileSync(path.join(REPO_ROOT, file), 'utf8') }));

describe('error-code registry', () => {
  it('docs/api.md §12 lists exactly the registry (paste the expected table to fix)', () => {
    const docs = readFileSync(path.join(REPO_ROOT, 'docs', 'api.md'), 'utf8');
    expect(tableInDocs(docs)).toBe(renderErrorCodeTable());
  });

  it('holds every code src/ throws as a literal', () => {
    const unknown = sources.flatMap(({ file, text }) =>
      thrownCodeLiterals(text)
        .filter((code) => !(code in ERROR_CODES))
        .map((code) => `${file}: ${code}`),
    );
    expect(unknown).toEqual([]);
  });

  it('has no code that src/ never uses', () => {
    const unused = Object.keys(ERROR_CODES).filter(
      (code) => !sources.some(({ text }) => text.includes(`'${code}'`)),
    );
    expect(unused).toEqual([]);
  });

  it('finds literals the way the error classes are called', () => {
    const source = [
      "throw new AppError('a_code', 'x');",
      "throw new InputError(\n  'b_code',\n  `y`);",
      "super('c_code', message);",
      "new HttpError(503, GrpcCode.unavailable, 'Service Unavailable', 'd_code');",
      "return fail(ep, timeout ? 'e_code' : 'f_code', msg);",
      "return fatal('g_code', 'z');",
    ].join('\n');
    expect(thrownCodeLiterals(source).sort()).toEqual([
      'a_code',
      'b_code',
      'c_code',
      'd_code',
      'e_code',
      'g_code',
    ]);
  });
});
