/**
 * `COPY table (columns) FROM STDIN` over a node-postgres client, without pg-copy-streams (not a
 * dependency): a query object node-postgres drives through its Submittable hooks, sending the rows
 * as PostgreSQL's text format once the server asks for them. Rows are encoded here, in memory.
 */
import type pg from 'pg';

/** One COPY text-format field: null as `\N`, bytes as `\\x…` hex, booleans as t/f, text escaped. */
export type CopyValue = string | number | boolean | Uint8Array | null;

const SPECIAL = /[\\\t\n\r]/g;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

function field(v: CopyValue): string {
  if (v === null) return '\\N';
  if (typeof v === 'number') return String(v);
  if (typeof v === 'boolean') return v ? 't' : 'f';
  if (typeof v === 'string') return v.replace(SPECIAL, (c) => ESCAPES[c]!);
  return `\\\\x${Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex')}`;
}

/** Rows of one table, encoded as they are added (the JSON text is the bulk of them). */
export class CopyRows {
  private parts: string[] = [];
  private size = 0;
  readonly chunks: Buffer[] = [];
  rows = 0;

  constructor(
    readonly table: string,
    readonly columns: readonly string[],
  ) {}

  add(...values: CopyValue[]): void {
    const line = `${values.map(field).join('\t')}\n`;
    this.parts.push(line);
    this.size += line.length;
    this.rows++;
    // Chunks of ~1 MB: one CopyData message each.
    if (this.size > 1 << 20) this.flush();
  }

  flush(): void {
    if (this.parts.length === 0) return;
    this.chunks.push(Buffer.from(this.parts.join(''), 'utf8'));
    this.parts = [];
    this.size = 0;
  }
}

interface CopyConnection {
  query(text: string): void;
  sendCopyFromChunk(chunk: Buffer): void;
  endCopyFrom(): void;
}

/** The Submittable node-postgres runs: it sends the statement, then the chunks when asked. */
class CopyIn {
  callback: ((err: Error | null) => void) | undefined;

  constructor(
    private readonly text: string,
    private readonly chunks: readonly Buffer[],
  ) {}

  submit(connection: CopyConnection): void {
    connection.query(this.text);
  }

  handleCopyInResponse(connection: CopyConnection): void {
    for (const chunk of this.chunks) connection.sendCopyFromChunk(chunk);
    connection.endCopyFrom();
  }

  handleError(err: Error): void {
    this.callback?.(err);
    this.callback = undefined;
  }

  handleReadyForQuery(): void {
    this.callback?.(null);
    this.callback = undefined;
  }

  handleCommandComplete(): void {}
  handleCopyData(): void {}
  handleRowDescription(): void {}
  handleDataRow(): void {}
  handleEmptyQuery(): void {}
}

/** Sends the rows (nothing when there are none); resolves once PostgreSQL has stored them. */
export async function copyIn(client: pg.Client, rows: CopyRows): Promise<void> {
  rows.flush();
  if (rows.rows === 0) return;
  const copy = new CopyIn(`COPY ${rows.table} (${rows.columns.join(', ')}) FROM STDIN`, rows.chunks);
  await new Promise<void>((resolve, reject) => {
    copy.callback = (err) => (err ? reject(err) : resolve());
    void client.query(copy as unknown as pg.QueryConfig);
  });
}
