/**
 * Field-level protobuf schema used by the REST renderer and encoder. It is extracted once from
 * the generated ts-proto modules (see reflect.ts) because neither package ships descriptors.
 */

export type ScalarKind =
  | 'string'
  | 'bytes'
  | 'bool'
  | 'int32'
  | 'uint32'
  | 'sint32'
  | 'fixed32'
  | 'sfixed32'
  | 'int64'
  | 'uint64'
  | 'sint64'
  | 'fixed64'
  | 'sfixed64'
  | 'double'
  | 'float'
  | 'enum';

export type FieldKind = ScalarKind | 'message' | 'map';

export interface EnumSchema {
  readonly fullName: string;
  readonly names: ReadonlyMap<number, string>;
  readonly values: ReadonlyMap<string, number>;
}

export interface FieldSchema {
  readonly no: number;
  /** Original proto field name (snake_case), the REST gateway's JSON key. */
  readonly name: string;
  readonly kind: FieldKind;
  readonly repeated: boolean;
  /** Packed encoding for repeated numeric scalars (proto3 default). */
  readonly packed: boolean;
  /** Member of a oneof (or proto3 optional): omitted from JSON when unset. */
  readonly oneof: boolean;
  /** gogoproto nullable=false message: rendered as its zero value when absent. */
  readonly nonNullable: boolean;
  /** Full message name for kind 'message' (and the map value when it is a message). */
  readonly typeName?: string;
  readonly enumSchema?: EnumSchema;
  /** cosmwasm RawContractMessage: bytes holding JSON, rendered as the JSON value itself. */
  readonly rawJson: boolean;
  readonly mapKey?: ScalarKind;
  readonly mapValue?: { kind: ScalarKind | 'message'; typeName?: string; enumSchema?: EnumSchema };
}

export interface MessageSchema {
  readonly fullName: string;
  /** Declaration order, which is the order ts-proto writes and the REST gateway renders. */
  readonly fields: readonly FieldSchema[];
  readonly byNumber: ReadonlyMap<number, FieldSchema>;
  readonly byName: ReadonlyMap<string, FieldSchema>;
  /** Field number → position in `fields`. */
  readonly positionOf: ReadonlyMap<number, number>;
}

export const WIRE_VARINT = 0;
export const WIRE_FIXED64 = 1;
export const WIRE_LEN = 2;
export const WIRE_FIXED32 = 5;

export function wireTypeOf(kind: FieldKind, packed: boolean): number {
  if (packed) return WIRE_LEN;
  switch (kind) {
    case 'string':
    case 'bytes':
    case 'message':
    case 'map':
      return WIRE_LEN;
    case 'fixed64':
    case 'sfixed64':
    case 'double':
      return WIRE_FIXED64;
    case 'fixed32':
    case 'sfixed32':
    case 'float':
      return WIRE_FIXED32;
    default:
      return WIRE_VARINT;
  }
}

export function makeMessageSchema(fullName: string, fields: FieldSchema[]): MessageSchema {
  return {
    fullName,
    fields,
    byNumber: new Map(fields.map((f) => [f.no, f])),
    byName: new Map(fields.map((f) => [f.name, f])),
    positionOf: new Map(fields.map((f, i) => [f.no, i])),
  };
}

/** proto field name from a ts-proto lowerCamel property name. */
export function snakeFromCamel(camel: string): string {
  return camel.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}
