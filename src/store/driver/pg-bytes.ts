import net from 'node:net';
import pg from 'pg';
import { Parser } from 'pg-protocol/dist/parser.js';
import { DataRowMessage } from 'pg-protocol/dist/messages.js';
import { framedSocket, framerOf } from './pg-socket.js';

/**
 * Stored JSON as bytes (issue 24): pg decodes every text field of a DataRow into a JS string
 * (UTF-8 -> UTF-16), and the API encodes it back into the response. For the statements that only
 * splice stored JSON into a body, that round trip is a large part of the driver's cost on a 100-tx page.
 * A pool built with `BytesClient` keeps each connection's protocol parser, but while a statement
 * that asked for bytes (`bytesQueryTypes`) runs, its `text` columns are handed over as copies of
 * their UTF-8 bytes. Every other statement and message goes through pg's own parser untouched.
 * Without TLS the socket also reads into one reused buffer per connection (pg-socket.ts).
 */

const TEXT_OID = 25;
const DATA_ROW = 0x44; // 'D'

const passThrough = (value: unknown) => value;

/**
 * The `types` of a statement whose `text` columns should arrive as Buffers: pg would otherwise
 * apply its text parser (String(value)). Also the marker the client looks for.
 */
export function bytesQueryTypes(base: pg.CustomTypesConfig): pg.CustomTypesConfig {
  const types = {
    getTypeParser: (oid: number, format?: string) =>
      oid === TEXT_OID ? passThrough : base.getTypeParser(oid, format as 'text'),
  };
  bytesTypes.add(types);
  return types;
}
const bytesTypes = new WeakSet<object>();

/** What this module reaches of pg-protocol's Parser: its per-message step (private in its types). */
interface PacketParser {
  handlePacket(offset: number, code: number, length: number, bytes: Buffer): unknown;
  parse(buffer: Buffer, callback: (message: { name: string }) => void): void;
}

/** A DataRow whose listed columns are copies of their bytes, the rest decoded as pg does. */
function parseDataRow(offset: number, bytes: Buffer, asBytes: readonly boolean[]): DataRowMessage {
  let at = offset;
  const count = bytes.readInt16BE(at);
  at += 2;
  const fields = new Array<unknown>(count);
  for (let i = 0; i < count; i++) {
    const length = bytes.readInt32BE(at);
    at += 4;
    if (length === -1) {
      fields[i] = null;
      continue;
    }
    // A copy: the parser reuses its buffer for later messages.
    fields[i] = asBytes[i]
      ? Buffer.from(bytes.subarray(at, at + length))
      : bytes.toString('utf8', at, at + length);
    at += length;
  }
  return new DataRowMessage(-1, fields as unknown as string[]);
}

/** pg's Parser with the DataRow step switched to bytes while `columns()` names some. */
function bytesParser(columns: () => readonly boolean[] | undefined): PacketParser {
  const parser = new Parser() as unknown as PacketParser;
  const textStep = parser.handlePacket.bind(parser);
  parser.handlePacket = (offset, code, length, bytes) => {
    const asBytes = code === DATA_ROW ? columns() : undefined;
    return asBytes ? parseDataRow(offset, bytes, asBytes) : textStep(offset, code, length, bytes);
  };
  return parser;
}

/** The parts of pg's Client and Connection (8.x) this subclass hooks; none is in pg's types. */
interface ClientInternals {
  _getActiveQuery(): { types?: unknown } | null;
  _handleRowDescription(message: { fields: { dataTypeID: number }[] }): void;
}
interface ConnectionInternals extends NodeJS.EventEmitter {
  _emitMessage: boolean;
  attachListeners(stream: NodeJS.ReadableStream): void;
}

const COPY_DATA = 0x64; // 'd'
const AUTHENTICATION = 0x52; // 'R'

/**
 * Feeds a connection's stream to `parser`. A framed socket hands over whole messages in its reused
 * buffer; the two kinds pg-protocol keeps a view of (CopyData's chunk, an MD5 salt read by an async
 * step) get their own copy first. Any other stream (TLS) emits 'data' and pg-protocol frames it.
 */
function feedParser(
  stream: NodeJS.ReadableStream,
  parser: PacketParser,
  emit: (message: { name: string }) => void,
) {
  const framer = framerOf(stream);
  if (!framer) {
    stream.on('data', (buffer: Buffer) => parser.parse(buffer, emit));
    return;
  }
  framer.onMessage = (code, offset, length, bytes) => {
    const keep = code === COPY_DATA || code === AUTHENTICATION;
    const message = keep
      ? parser.handlePacket(0, code, length, Buffer.from(bytes.subarray(offset, offset + length - 4)))
      : parser.handlePacket(offset, code, length, bytes);
    emit(message as { name: string });
  };
}

/**
 * pg's own socket where the connection uses TLS (pg negotiates it by reading the server's one-byte
 * answer as a 'data' event, which a framed socket never emits), a framed one otherwise.
 */
function connectionStream(config: { ssl?: unknown }): net.Socket {
  return config.ssl ? new net.Socket() : framedSocket();
}

/** pg.Client whose statements may ask for their `text` columns as bytes (see bytesQueryTypes). */
export class BytesClient extends pg.Client {
  /** Per column of the running statement: true = hand over bytes; undefined = pg's parse. */
  #asBytes: boolean[] | undefined;

  constructor(config?: pg.ClientConfig) {
    // pg calls a `stream` function with its connection settings (ssl resolved from the URL); its
    // types declare it without parameters.
    super({ stream: connectionStream as unknown as () => net.Socket, ...config });
    const connection = this.connection as unknown as ConnectionInternals;
    // pg 8's Connection.attachListeners with our parser in place of pg-protocol's parse().
    connection.attachListeners = (stream) => {
      feedParser(
        stream,
        bytesParser(() => this.#asBytes),
        (message) => {
          if (connection._emitMessage) connection.emit('message', message);
          connection.emit(message.name === 'error' ? 'errorMessage' : message.name, message);
        },
      );
    };
    // Each statement's rows are announced by a RowDescription (pg always describes the portal):
    // the columns to keep as bytes are decided there, for that statement's DataRows only.
    const internals = this as unknown as ClientInternals;
    const describe = internals._handleRowDescription.bind(this);
    internals._handleRowDescription = (message) => {
      const types = internals._getActiveQuery()?.types;
      this.#asBytes =
        types && bytesTypes.has(types) ? message.fields.map((f) => f.dataTypeID === TEXT_OID) : undefined;
      describe(message);
    };
  }
}
