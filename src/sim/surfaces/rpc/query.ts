import type { SimEvent } from '../../chain/events.js';

/**
 * CometBFT's event query language (libs/pubsub/query/syntax), the subset clients send to
 * tx_search / block_search: `tag OP arg` conditions joined by AND; OP is = < <= > >= CONTAINS
 * EXISTS; arg a 'string', a number, or DATE/TIME. Parse errors use CometBFT's texts
 * ("offset N: got X, wanted Y"), so a client sees what a real node would say.
 */
export type QueryOp = '=' | '<' | '<=' | '>' | '>=' | 'CONTAINS' | 'EXISTS';

export interface Condition {
  tag: string;
  op: QueryOp;
  /** Absent for EXISTS. */
  arg?: { kind: 'string' | 'number' | 'time' | 'date'; text: string };
}

type TokenKind = 'tag' | 'string' | 'number' | 'time' | 'date' | 'and' | 'op';
interface Token {
  kind: TokenKind;
  text: string;
  pos: number;
}

const LABEL: Record<string, string> = {
  tag: 'tag',
  string: 'string',
  number: 'number',
  time: 'timestamp',
  date: 'datestamp',
  and: '"AND" operator',
};
const label = (t: Token): string => (t.kind === 'op' ? `"${t.text}" operator` : LABEL[t.kind]!);

export class QueryError extends Error {}

const TAG = /^[A-Za-z_][\w.\-/]*/;
const NUMBER = /^-?\d+(\.\d+)?/;

function scan(text: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const rest = text.slice(i);
    const space = /^\s+/.exec(rest);
    if (space) {
      i += space[0].length;
      continue;
    }
    const pos = i;
    const opMatch = /^(<=|>=|=|<|>)/.exec(rest);
    if (opMatch) {
      out.push({ kind: 'op', text: opMatch[1]!, pos });
      i += opMatch[1]!.length;
    } else if (rest.startsWith("'")) {
      const end = rest.indexOf("'", 1);
      if (end < 0) throw new QueryError(`offset ${pos}: unterminated quoted string`);
      out.push({ kind: 'string', text: rest.slice(1, end), pos });
      i += end + 1;
    } else if (NUMBER.test(rest)) {
      const n = NUMBER.exec(rest)![0];
      out.push({ kind: 'number', text: n, pos });
      i += n.length;
    } else if (TAG.test(rest)) {
      const word = TAG.exec(rest)![0];
      i += word.length;
      const timed = /^(TIME|DATE)\s+(\S+)/.exec(rest);
      if (timed) {
        out.push({ kind: timed[1] === 'TIME' ? 'time' : 'date', text: timed[2]!, pos });
        i = pos + timed[0].length;
      } else if (word === 'AND') out.push({ kind: 'and', text: word, pos });
      else if (word === 'CONTAINS' || word === 'EXISTS') out.push({ kind: 'op', text: word, pos });
      else out.push({ kind: 'tag', text: word, pos });
    } else {
      throw new QueryError(`offset ${pos}: invalid input "${rest[0]}"`);
    }
  }
  return out;
}

/** Parses a query; throws QueryError with CometBFT's wording. */
export function parseQuery(text: string): Condition[] {
  const tokens = scan(text);
  let at = 0;
  const need = (kinds: TokenKind[], wanted: string): Token => {
    const t = tokens[at++];
    if (!t) throw new QueryError(`offset ${text.length}: EOF`);
    if (!kinds.includes(t.kind)) throw new QueryError(`offset ${t.pos}: got ${label(t)}, wanted ${wanted}`);
    return t;
  };
  const conditions: Condition[] = [];
  for (;;) {
    const tag = need(['tag'], 'tag');
    const op = need(
      ['op'],
      '"<=" operator, ">=" operator, "<" operator, ">" operator, "=" operator, "CONTAINS" operator or "EXISTS" operator',
    );
    const cond: Condition = { tag: tag.text, op: op.text as QueryOp };
    if (op.text === '=') {
      const a = need(['number', 'time', 'date', 'string'], 'number, timestamp, datestamp or string');
      cond.arg = { kind: a.kind as 'string', text: a.text };
    } else if (op.text === 'CONTAINS') {
      cond.arg = { kind: 'string', text: need(['string'], 'string').text };
    } else if (op.text !== 'EXISTS') {
      const a = need(['number', 'time', 'date'], 'number, timestamp or datestamp');
      cond.arg = { kind: a.kind as 'number', text: a.text };
    }
    conditions.push(cond);
    const next = tokens[at++];
    if (!next) return conditions;
    if (next.kind !== 'and')
      throw new QueryError(`offset ${next.pos}: got ${label(next)}, want "AND" operator`);
  }
}

/** Whether one attribute value satisfies a condition (numbers compare as numbers, as CometBFT does). */
export function valueMatches(cond: Condition, value: string): boolean {
  const arg = cond.arg;
  if (cond.op === 'EXISTS' || !arg) return true;
  if (cond.op === 'CONTAINS') return value.includes(arg.text);
  if (arg.kind === 'string') return cond.op === '=' && value === arg.text;
  if (arg.kind !== 'number') return false;
  const n = Number(/^-?\d+(\.\d+)?/.exec(value)?.[0] ?? Number.NaN);
  const a = Number(arg.text);
  if (Number.isNaN(n)) return false;
  switch (cond.op) {
    case '=':
      return n === a;
    case '<':
      return n < a;
    case '<=':
      return n <= a;
    case '>':
      return n > a;
    default:
      return n >= a;
  }
}

/** An event condition (`type.key OP arg`) holds when any event of that type has a matching attribute. */
export function eventsMatch(cond: Condition, events: SimEvent[]): boolean {
  const dot = cond.tag.lastIndexOf('.');
  if (dot <= 0) return false;
  const type = cond.tag.slice(0, dot);
  const key = cond.tag.slice(dot + 1);
  return events.some(
    (e) => e.type === type && e.attributes.some((a) => a.key === key && valueMatches(cond, a.value)),
  );
}

/**
 * The height range a query's conditions on `heightTag` allow, intersected with [lo, hi]; the
 * conditions used are removed from the returned list so they are not checked twice.
 */
export function heightRange(
  conditions: Condition[],
  heightTag: string,
  lo: number,
  hi: number,
): { lo: number; hi: number; rest: Condition[] } {
  const rest: Condition[] = [];
  for (const c of conditions) {
    if (c.tag !== heightTag || c.arg?.kind !== 'number' || c.op === 'CONTAINS') {
      rest.push(c);
      continue;
    }
    const v = Number(c.arg.text);
    if (c.op === '=') {
      lo = Math.max(lo, Math.ceil(v));
      hi = Math.min(hi, Math.floor(v));
    } else if (c.op === '>') lo = Math.max(lo, Math.floor(v) + 1);
    else if (c.op === '>=') lo = Math.max(lo, Math.ceil(v));
    else if (c.op === '<') hi = Math.min(hi, Math.ceil(v) - 1);
    else if (c.op === '<=') hi = Math.min(hi, Math.floor(v));
    else rest.push(c);
  }
  return { lo, hi, rest };
}
