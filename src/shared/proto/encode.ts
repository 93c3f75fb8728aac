import { AppError } from '../errors.js';
import type { ProtoRegistry } from './registry.js';
import type { FieldSchema, MessageSchema, ScalarKind } from './schema.js';
import { wireTypeOf } from './schema.js';
import { WireWriter } from './wire.js';

/**
 * REST proto-JSON → protobuf bytes, the inverse of render.ts. Fields are written in
 * declaration order and proto3 defaults are skipped, as ts-proto (and so initia.js) writes them,
 * so a tx rendered from initia.js bytes re-encodes byte-identically.
 */

export class ProtoEncodeError extends AppError {
  constructor(message: string) {
    super('proto_encode_failed', message);
    this.name = 'ProtoEncodeError';
  }
}

type Json = unknown;

export function encodeMessage(
  registry: ProtoRegistry,
  schema: MessageSchema,
  json: Json,
  path: string,
): Uint8Array {
  if (schema.fullName === 'google.protobuf.Any') return encodeAny(registry, json, path);
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new ProtoEncodeError(`${path}: expected an object for ${schema.fullName}`);
  }
  const obj = json as Record<string, Json>;
  for (const key of Object.keys(obj)) {
    if (key !== '@type' && !schema.byName.has(key)) {
      throw new ProtoEncodeError(`${path}.${key}: no such field in ${schema.fullName}`);
    }
  }
  const w = new WireWriter();
  for (const field of schema.fields) {
    const value = obj[field.name];
    if (value === undefined || value === null) continue;
    writeField(registry, w, field, value, `${path}.${field.name}`);
  }
  return w.finish();
}

function encodeAny(registry: ProtoRegistry, json: Json, path: string): Uint8Array {
  const obj = json as Record<string, Json>;
  const typeUrl = obj['@type'];
  if (typeof typeUrl !== 'string') throw new ProtoEncodeError(`${path}: Any without "@type"`);
  const inner = registry.byTypeUrl(typeUrl);
  let value: Uint8Array;
  if (inner) {
    const rest: Record<string, Json> = { ...obj };
    delete rest['@type'];
    value = encodeMessage(registry, inner, rest, path);
  } else if (typeof obj['value'] === 'string') {
    value = Buffer.from(obj['value'], 'base64');
  } else {
    throw new ProtoEncodeError(`${path}: unknown message type ${typeUrl}`);
  }
  const w = new WireWriter();
  w.tag(1, 2);
  w.lengthDelimited(Buffer.from(typeUrl, 'utf8'));
  if (value.length > 0) {
    w.tag(2, 2);
    w.lengthDelimited(value);
  }
  return w.finish();
}

function writeField(
  registry: ProtoRegistry,
  w: WireWriter,
  field: FieldSchema,
  value: Json,
  path: string,
): void {
  if (field.kind === 'map') {
    for (const [k, v] of Object.entries(value as Record<string, Json>)) {
      const entry = new WireWriter();
      writeValue(registry, entry, 1, field.mapKey ?? 'string', undefined, k, true, path);
      const spec = field.mapValue ?? { kind: 'string' as const };
      writeValue(registry, entry, 2, spec.kind, { ...field, ...spec, kind: spec.kind }, v, true, path);
      w.tag(field.no, 2);
      w.lengthDelimited(entry.finish());
    }
    return;
  }
  if (!field.repeated) {
    writeValue(registry, w, field.no, field.kind, field, value, !field.oneof, path);
    return;
  }
  if (!Array.isArray(value)) throw new ProtoEncodeError(`${path}: expected an array`);
  if (value.length === 0) return;
  if (field.packed) {
    const inner = new WireWriter();
    for (const v of value) writeScalarBody(inner, field.kind as ScalarKind, field, v, path);
    w.tag(field.no, 2);
    w.lengthDelimited(inner.finish());
    return;
  }
  value.forEach((v, i) => writeValue(registry, w, field.no, field.kind, field, v, false, `${path}[${i}]`));
}

function writeValue(
  registry: ProtoRegistry,
  w: WireWriter,
  no: number,
  kind: FieldSchema['kind'],
  field: FieldSchema | undefined,
  value: Json,
  skipDefault: boolean,
  path: string,
): void {
  if (kind === 'message') {
    const bytes = encodeNested(registry, field?.typeName ?? '', value, path);
    w.tag(no, 2);
    w.lengthDelimited(bytes);
    return;
  }
  if (kind === 'string' || kind === 'bytes') {
    const bytes = stringOrBytes(kind, field, value, path);
    if (skipDefault && bytes.length === 0) return;
    w.tag(no, 2);
    w.lengthDelimited(bytes);
    return;
  }
  const scalar = kind as ScalarKind;
  if (skipDefault && isZero(scalar, field, value)) return;
  w.tag(no, wireTypeOf(scalar, false));
  writeScalarBody(w, scalar, field, value, path);
}

function stringOrBytes(
  kind: 'string' | 'bytes',
  field: FieldSchema | undefined,
  value: Json,
  path: string,
): Uint8Array {
  if (kind === 'bytes' && field?.rawJson && typeof value !== 'string') {
    return Buffer.from(JSON.stringify(value), 'utf8');
  }
  if (typeof value !== 'string') throw new ProtoEncodeError(`${path}: expected a string`);
  return kind === 'string' ? Buffer.from(value, 'utf8') : Buffer.from(value, 'base64');
}

function encodeNested(registry: ProtoRegistry, typeName: string, value: Json, path: string): Uint8Array {
  if (typeName === 'google.protobuf.Timestamp') return encodeTimestamp(value, path);
  if (typeName === 'google.protobuf.Duration') return encodeDuration(value, path);
  const schema = registry.message(typeName);
  if (!schema) {
    if (typeof value === 'string') return Buffer.from(value, 'base64');
    throw new ProtoEncodeError(`${path}: unknown message type ${typeName}`);
  }
  return encodeMessage(registry, schema, value, path);
}

function isZero(kind: ScalarKind, field: FieldSchema | undefined, value: Json): boolean {
  if (kind === 'enum') return enumNumber(field, value, '') === 0;
  if (kind === 'bool') return value === false;
  return value === 0 || value === '0' || value === '';
}

function enumNumber(field: FieldSchema | undefined, value: Json, path: string): number {
  if (typeof value === 'number') return value;
  const n = field?.enumSchema?.values.get(String(value));
  if (n === undefined) throw new ProtoEncodeError(`${path}: unknown enum value ${String(value)}`);
  return n;
}

function toBigInt(value: Json, path: string): bigint {
  try {
    return BigInt(value as string | number);
  } catch {
    throw new ProtoEncodeError(`${path}: expected an integer, got ${JSON.stringify(value)}`);
  }
}

function writeScalarBody(
  w: WireWriter,
  kind: ScalarKind,
  field: FieldSchema | undefined,
  value: Json,
  path: string,
): void {
  switch (kind) {
    case 'bool':
      w.uint32(value === true ? 1 : 0);
      return;
    case 'enum':
      w.varintBig(BigInt(enumNumber(field, value, path)));
      return;
    case 'uint32':
      w.uint32(Number(value));
      return;
    case 'int32':
    case 'int64':
    case 'uint64':
      w.varintBig(toBigInt(value, path));
      return;
    case 'sint32':
    case 'sint64': {
      const v = toBigInt(value, path);
      w.varintBig(v >= 0n ? v << 1n : (-v << 1n) - 1n);
      return;
    }
    case 'fixed32':
    case 'sfixed32':
      w.fixed32(Number(value));
      return;
    case 'fixed64':
    case 'sfixed64':
      w.fixed64(toBigInt(value, path));
      return;
    case 'float': {
      const b = Buffer.alloc(4);
      b.writeFloatLE(Number(value));
      w.raw(b);
      return;
    }
    case 'double': {
      const b = Buffer.alloc(8);
      b.writeDoubleLE(Number(value));
      w.raw(b);
      return;
    }
    default:
      throw new ProtoEncodeError(`${path}: cannot encode ${kind}`);
  }
}

function writeSecondsNanos(seconds: bigint, nanos: number): Uint8Array {
  const w = new WireWriter();
  if (seconds !== 0n) {
    w.tag(1, 0);
    w.varintBig(seconds);
  }
  if (nanos !== 0) {
    w.tag(2, 0);
    w.varintBig(BigInt(nanos));
  }
  return w.finish();
}

const TIMESTAMP_RE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?Z$/;

function encodeTimestamp(value: Json, path: string): Uint8Array {
  const m = typeof value === 'string' ? TIMESTAMP_RE.exec(value) : null;
  if (!m) throw new ProtoEncodeError(`${path}: expected an RFC 3339 UTC timestamp`);
  const ms = Date.UTC(0, Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
  const d = new Date(ms);
  d.setUTCFullYear(Number(m[1]));
  const seconds = BigInt(Math.floor(d.getTime() / 1000));
  const nanos = Number((m[7] ?? '').padEnd(9, '0'));
  return writeSecondsNanos(seconds, nanos);
}

function encodeDuration(value: Json, path: string): Uint8Array {
  const m = typeof value === 'string' ? /^(-?)(\d+)(?:\.(\d{1,9}))?s$/.exec(value) : null;
  if (!m) throw new ProtoEncodeError(`${path}: expected a duration like "1.5s"`);
  const sign = m[1] === '-' ? -1 : 1;
  const seconds = BigInt(m[2] ?? '0') * BigInt(sign);
  const nanos = Number((m[3] ?? '').padEnd(9, '0')) * sign;
  return writeSecondsNanos(seconds, nanos);
}
