import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node } from 'yaml';
import type { ErrorCode } from './error-codes.js';
import { InputError } from './errors.js';

/**
 * A YAML (or JSON: JSON is YAML 1.2) file read field by field, every failure naming the file, the
 * source line and the field path (`chains[1].rpc`) under one error code. Used for files an operator
 * writes by hand: the VIP rules file and the chains file.
 */

export type FieldPath = (string | number)[];

export class YamlFileReader {
  private constructor(
    private readonly doc: Document,
    private readonly lines: LineCounter,
    private readonly file: string,
    private readonly code: ErrorCode,
  ) {}

  /** Parses `text`; a syntax error (or a duplicate key) fails at once with its line. */
  static parse(text: string, file: string, code: ErrorCode): YamlFileReader {
    const lines = new LineCounter();
    const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
    const first = doc.errors[0];
    if (first) {
      const line = lines.linePos(first.pos[0]).line;
      const message = first.message.split('\n')[0] ?? first.message;
      throw new InputError(code, `${file}:${line}: (file): ${message}`, { line, field: '(file)' });
    }
    return new YamlFileReader(doc, lines, file, code);
  }

  fail(path: FieldPath, what: string, at?: Node | null): never {
    const node = at ?? this.nearest(path);
    const offset = node?.range?.[0] ?? 0;
    const line = this.lines.linePos(offset).line;
    const field = fieldPath(path);
    throw new InputError(this.code, `${this.file}:${line}: ${field}: ${what}`, { line, field });
  }

  /** The node at path, or its closest existing parent (a missing field is reported at its parent). */
  nearest(path: FieldPath): Node | null {
    for (let n = path.length; n >= 0; n--) {
      const node = this.doc.getIn(path.slice(0, n), true) as Node | undefined;
      if (node && typeof node === 'object' && 'range' in node) return node;
    }
    return this.doc.contents;
  }

  node(path: FieldPath): Node | undefined {
    if (path.length === 0) return this.doc.contents ?? undefined;
    const node = this.doc.getIn(path, true) as Node | undefined;
    return node && typeof node === 'object' && 'range' in node ? node : undefined;
  }

  /** The keys of the mapping at path; a key outside `allowed` fails naming it. */
  keys(path: FieldPath, allowed: readonly string[]): string[] {
    const node = this.node(path);
    if (!isMap(node)) this.fail(path, 'must be a mapping');
    const seen: string[] = [];
    for (const pair of node.items) {
      const key = isScalar(pair.key) ? String(pair.key.value) : '';
      if (!allowed.includes(key)) {
        this.fail([...path, key], `unknown key (allowed: ${allowed.join(', ')})`, pair.key as Node);
      }
      seen.push(key);
    }
    return seen;
  }

  /** A scalar's source text (numbers keep their digits: 0.10 is not turned into 0.1). */
  text(path: FieldPath, what: string): string {
    const node = this.node(path);
    if (!isScalar(node) || (typeof node.value !== 'string' && typeof node.value !== 'number')) {
      this.fail(path, `must be ${what}`);
    }
    return typeof node.value === 'string' ? node.value : (node.source ?? String(node.value));
  }

  string(path: FieldPath, what = 'a non-empty string'): string {
    const node = this.node(path);
    if (!isScalar(node) || typeof node.value !== 'string' || node.value.trim() === '')
      this.fail(path, `must be ${what}`);
    return node.value.trim();
  }

  optionalString(path: FieldPath, test: RegExp, what: string): string | undefined {
    if (this.node(path) === undefined) return undefined;
    const value = this.string(path, what);
    if (!test.test(value)) this.fail(path, `must be ${what}`);
    return value;
  }

  /** A string or a list of strings (a chain's URLs), as a list. */
  stringList(path: FieldPath, what: string): string[] {
    const node = this.node(path);
    if (!isSeq(node)) return [this.string(path, what)];
    if (node.items.length === 0) this.fail(path, `must be ${what}, or a non-empty list of them`);
    return node.items.map((_, i) => this.string([...path, i], what));
  }

  seqLength(path: FieldPath, what: string): number {
    const node = this.node(path);
    if (!isSeq(node)) this.fail(path, `must be a list of ${what}`);
    return node.items.length;
  }
}

function fieldPath(path: FieldPath): string {
  if (path.length === 0) return '(file)';
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');
}
