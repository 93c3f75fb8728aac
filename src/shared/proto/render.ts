import type { ProtoRegistry } from './registry.js';
import type { FieldSchema, MessageSchema, ScalarKind } from './schema.js';
import { WIRE_LEN, wireTypeOf } from './schema.js';
import {
  ProtoDecodeError,
  WireReader,
  base64,
  int64String,
  sint64String,
  uint64String,
  utf8,
} from './wire.js';

/**
 * Protobuf bytes → the Cosmos REST gateway's proto-JSON (gogoproto jsonpb with OrigName and
 * EmitDefaults): snake_case keys in declaration order, 64-bit integers as strings, bytes as
 * base64 (absent bytes as null), enums by name (unknown values as numbers), unset messages as
 * null, unset oneof members omitted, Any as {"@type", ...fields}, Timestamp/Duration as strings.
 */

export type JsonValue = string | number | boolean | null | JsonValue[] | { [k: string]: JsonValue };
export type JsonObject = { [k: string]: JsonValue };

export interface RenderProblems {
  /** Any type URLs with no schema (rendered as {"@type", "value": base64}). */
  readonly unknownTypes: Set<string>;
  /** Field numbers present on the wire but not in the schema, as `full.Name#no`. */
  readonly unknownFields: Set<string>;
}

export function newProblems(): RenderProblems {
  return { unknownTypes: new Set(), unknownFields: new Set() };
}

export function renderMessage(
  registry: ProtoRegistry,
  schema: MessageSchema,
  buf: Uint8Array,
  start: number,
  end: number,
  problems: RenderProblems,
): JsonObject {
  if (schema.fullName === 'google.protobuf.Any') return renderAny(registry, buf, start, end, problems);
  const fields = schema.fields;
  const values: (JsonValue | undefined)[] = new Array<JsonValue | undefined>(fields.length);
  const reader = new WireReader(buf, start, end);
  while (reader.pos < end) {
    const tag = reader.uint32();
    const no = tag >>> 3;
    const wireType = tag & 7;
    const pos = schema.positionOf.get(no);
    if (pos === undefined) {
      problems.unknownFields.add(`${schema.fullName}#${no}`);
      reader.skip(wireType);
      continue;
    }
    values[pos] = readField(registry, fields[pos] as FieldSchema, wireType, reader, values[pos], problems);
  }
  const out: JsonObject = {};
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i] as FieldSchema;
    const value = values[i];
    if (value !== undefined) out[field.name] = value;
    else if (!field.oneof) out[field.name] = defaultValue(registry, field, problems);
  }
  return out;
}

/** Reads one occurrence of a field and returns the field's accumulated value. */
function readField(
  registry: ProtoRegistry,
  field: FieldSchema,
  wireType: number,
  reader: WireReader,
  current: JsonValue | undefined,
  problems: RenderProblems,
): JsonValue {
  if (field.kind === 'map') {
    const [s, e] = reader.lengthDelimited();
    const obj = (current as JsonObject | undefined) ?? {};
    const [key, value] = readMapEntry(registry, field, reader.buf, s, e, problems);
    obj[key] = value;
    return obj;
  }
  if (!field.repeated) return readSingle(registry, field, wireType, reader, problems);
  const list = (current as JsonValue[] | undefined) ?? [];
  const packable = field.kind !== 'string' && field.kind !== 'bytes' && field.kind !== 'message';
  if (packable && wireType === WIRE_LEN) {
    const [s, e] = reader.lengthDelimited();
    const inner = new WireReader(reader.buf, s, e);
    const innerWire = wireTypeOf(field.kind, false);
    while (inner.pos < e) list.push(readSingle(registry, field, innerWire, inner, problems));
    return list;
  }
  list.push(readSingle(registry, field, wireType, reader, problems));
  return list;
}

function expectWire(field: FieldSchema, wireType: number, expected: number): void {
  if (wireType !== expected) {
    throw new ProtoDecodeError(
      `malformed protobuf: field ${field.name} (#${field.no}) has wire type ${wireType}, expected ${expected}`,
    );
  }
}

function readSingle(
  registry: ProtoRegistry,
  field: FieldSchema,
  wireType: number,
  reader: WireReader,
  problems: RenderProblems,
): JsonValue {
  if (field.kind === 'message') {
    expectWire(field, wireType, WIRE_LEN);
    const [s, e] = reader.lengthDelimited();
    return renderNested(registry, field.typeName ?? '', reader.buf, s, e, problems);
  }
  if (field.kind === 'string' || field.kind === 'bytes') {
    expectWire(field, wireType, WIRE_LEN);
    const [s, e] = reader.lengthDelimited();
    if (field.kind === 'string') return utf8(reader.buf, s, e);
    return field.rawJson ? rawJsonValue(reader.buf, s, e) : base64(reader.buf, s, e);
  }
  return readScalar(field.kind as ScalarKind, wireType, reader, field);
}

export function readScalar(
  kind: ScalarKind,
  wireType: number,
  reader: WireReader,
  field: FieldSchema | undefined,
): JsonValue {
  const name = field?.name ?? 'value';
  const want = wireTypeOf(kind, false);
  if (wireType !== want) {
    throw new ProtoDecodeError(
      `malformed protobuf: field ${name} has wire type ${wireType}, expected ${want}`,
    );
  }
  switch (kind) {
    case 'bool':
      return reader.varint64()[0] !== 0;
    case 'int32':
      return reader.varint64()[0] | 0;
    case 'uint32':
      return reader.uint32();
    case 'sint32': {
      const v = reader.uint32();
      return (v >>> 1) ^ -(v & 1);
    }
    case 'enum': {
      const v = reader.varint64()[0] | 0;
      return field?.enumSchema?.names.get(v) ?? v;
    }
    case 'int64':
      return int64String(...reader.varint64());
    case 'uint64':
      return uint64String(...reader.varint64());
    case 'sint64':
      return sint64String(...reader.varint64());
    case 'fixed64':
      return uint64String(...reader.fixed64());
    case 'sfixed64':
      return int64String(...reader.fixed64());
    case 'fixed32':
      return reader.fixed32();
    case 'sfixed32':
      return reader.fixed32() | 0;
    case 'float': {
      const p = reader.pos;
      reader.fixed32();
      return Buffer.from(reader.buf.buffer, reader.buf.byteOffset + p, 4).readFloatLE(0);
    }
    case 'double': {
      const p = reader.pos;
      reader.fixed64();
      return Buffer.from(reader.buf.buffer, reader.buf.byteOffset + p, 8).readDoubleLE(0);
    }
    default:
      throw new ProtoDecodeError(`unsupported scalar kind ${kind}`);
  }
}

function renderNested(
  registry: ProtoRegistry,
  typeName: string,
  buf: Uint8Array,
  start: number,
  end: number,
  problems: RenderProblems,
): JsonValue {
  if (typeName === 'google.protobuf.Timestamp') return renderTimestamp(buf, start, end);
  if (typeName === 'google.protobuf.Duration') return renderDuration(buf, start, end);
  const schema = registry.message(typeName);
  if (!schema) {
    problems.unknownTypes.add(`/${typeName}`);
    return base64(buf, start, end);
  }
  return renderMessage(registry, schema, buf, start, end, problems);
}

/** Any: the inner message's fields after "@type"; an unknown type is reported, not guessed. */
function renderAny(
  registry: ProtoRegistry,
  buf: Uint8Array,
  start: number,
  end: number,
  problems: RenderProblems,
): JsonObject {
  const reader = new WireReader(buf, start, end);
  let typeUrl = '';
  let valueStart = 0;
  let valueEnd = 0;
  while (reader.pos < end) {
    const tag = reader.uint32();
    if (tag === 10) {
      const [s, e] = reader.lengthDelimited();
      typeUrl = utf8(buf, s, e);
    } else if (tag === 18) {
      [valueStart, valueEnd] = reader.lengthDelimited();
    } else {
      problems.unknownFields.add(`google.protobuf.Any#${tag >>> 3}`);
      reader.skip(tag & 7);
    }
  }
  const inner = registry.byTypeUrl(typeUrl);
  if (!inner || WELL_KNOWN_IN_ANY.has(inner.fullName)) {
    problems.unknownTypes.add(typeUrl);
    return { '@type': typeUrl, value: base64(buf, valueStart, valueEnd) };
  }
  const fields = renderMessage(registry, inner, buf, valueStart, valueEnd, problems);
  return { '@type': typeUrl, ...fields };
}

/** jsonpb writes these inside an Any as {"@type", "value"}; not expected in txs, so reported. */
const WELL_KNOWN_IN_ANY = new Set([
  'google.protobuf.Timestamp',
  'google.protobuf.Duration',
  'google.protobuf.Any',
]);

function readSecondsNanos(buf: Uint8Array, start: number, end: number): [bigint, number] {
  const reader = new WireReader(buf, start, end);
  let seconds = 0n;
  let nanos = 0;
  while (reader.pos < end) {
    const tag = reader.uint32();
    if (tag === 8) seconds = BigInt(int64String(...reader.varint64()));
    else if (tag === 16) nanos = reader.varint64()[0] | 0;
    else reader.skip(tag & 7);
  }
  return [seconds, nanos];
}

/** jsonpb fractional seconds: 0, 3, 6 or 9 digits. */
function fraction(nanos: number): string {
  if (nanos === 0) return '';
  let digits = String(Math.abs(nanos)).padStart(9, '0');
  while (digits.endsWith('000')) digits = digits.slice(0, -3);
  return `.${digits}`;
}

export function formatTimestamp(seconds: bigint, nanos: number): string {
  const ms = Number(seconds) * 1000;
  const d = new Date(ms);
  const year = d.getUTCFullYear();
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  const date = `${pad(year, 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
  const time = `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
  return `${date}T${time}${fraction(nanos)}Z`;
}

function renderTimestamp(buf: Uint8Array, start: number, end: number): string {
  const [seconds, nanos] = readSecondsNanos(buf, start, end);
  return formatTimestamp(seconds, nanos);
}

function renderDuration(buf: Uint8Array, start: number, end: number): string {
  const [seconds, nanos] = readSecondsNanos(buf, start, end);
  const negative = seconds < 0n || nanos < 0;
  const abs = seconds < 0n ? -seconds : seconds;
  return `${negative ? '-' : ''}${abs}${fraction(nanos)}s`;
}

/** RawContractMessage: the stored JSON itself; bytes that are not JSON fall back to base64. */
function rawJsonValue(buf: Uint8Array, start: number, end: number): JsonValue {
  const text = utf8(buf, start, end);
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return base64(buf, start, end);
  }
}

function readMapEntry(
  registry: ProtoRegistry,
  field: FieldSchema,
  buf: Uint8Array,
  start: number,
  end: number,
  problems: RenderProblems,
): [string, JsonValue] {
  const reader = new WireReader(buf, start, end);
  let key: JsonValue = '';
  let value: JsonValue | undefined;
  const valueSpec = field.mapValue ?? { kind: 'string' as const };
  while (reader.pos < end) {
    const tag = reader.uint32();
    if (tag >>> 3 === 1) {
      key = readScalarOrString(field.mapKey ?? 'string', tag & 7, reader);
    } else if (tag >>> 3 === 2) {
      if (valueSpec.kind === 'message') {
        const [s, e] = reader.lengthDelimited();
        value = renderNested(registry, valueSpec.typeName ?? '', buf, s, e, problems);
      } else value = readScalarOrString(valueSpec.kind, tag & 7, reader);
    } else reader.skip(tag & 7);
  }
  return [String(key), value ?? null];
}

function readScalarOrString(kind: ScalarKind, wireType: number, reader: WireReader): JsonValue {
  if (kind === 'string' || kind === 'bytes') {
    const [s, e] = reader.lengthDelimited();
    return kind === 'string' ? utf8(reader.buf, s, e) : base64(reader.buf, s, e);
  }
  return readScalar(kind, wireType, reader, undefined);
}

function defaultValue(registry: ProtoRegistry, field: FieldSchema, problems: RenderProblems): JsonValue {
  if (field.repeated) return [];
  switch (field.kind) {
    case 'map':
      return {};
    case 'message':
      if (!field.nonNullable) return null;
      if (field.typeName === 'google.protobuf.Timestamp') return '0001-01-01T00:00:00Z';
      return renderNested(registry, field.typeName ?? '', new Uint8Array(0), 0, 0, problems);
    case 'string':
      return '';
    case 'bytes':
      return null;
    case 'bool':
      return false;
    case 'int64':
    case 'uint64':
    case 'sint64':
    case 'fixed64':
    case 'sfixed64':
      return '0';
    case 'enum':
      return field.enumSchema?.names.get(0) ?? 0;
    default:
      return 0;
  }
}
