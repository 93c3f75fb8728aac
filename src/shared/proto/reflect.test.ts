import { describe, expect, it } from 'vitest';
import { encodeMessage } from './encode.js';
import { reflectPackages } from './reflect.js';
import { createProtoRegistry } from './registry.js';
import { renderMessage, newProblems } from './render.js';
import type { JsonValue } from './render.js';
import type { FieldSchema, MessageSchema, ScalarKind } from './schema.js';

/**
 * Cross-check of the extracted schemas against the generated ts-proto code they came from: for
 * every tx message type (`*.Msg…`, not responses), a JSON value with every field set is encoded
 * by our encoder, then decoded and re-encoded by the package's own codec. Equal bytes mean our
 * field numbers, wire types, packing and nesting agree with the generated code; rendering the
 * bytes back must give the same JSON.
 */
const reflected = reflectPackages();
const registry = createProtoRegistry();

const SAMPLE_ANY = {
  '@type': '/cosmos.bank.v1beta1.MsgSend',
  from_address: 'init1from',
  to_address: 'init1to',
  amount: [{ denom: 'uinit', amount: '7' }],
};

function scalarSample(kind: ScalarKind | 'map', field: FieldSchema | undefined, salt: number): JsonValue {
  switch (kind) {
    case 'string':
      return `s${salt}`;
    case 'bytes':
      return field?.rawJson ? { k: salt } : Buffer.from([salt, 1, 2]).toString('base64');
    case 'bool':
      return true;
    case 'enum': {
      const names = [...(field?.enumSchema?.names.entries() ?? [])].filter(([n]) => n !== 0);
      return names[0]?.[1] ?? 1;
    }
    case 'int32':
    case 'sint32':
    case 'sfixed32':
      return -3 - salt;
    case 'uint32':
    case 'fixed32':
      return 3 + salt;
    case 'int64':
    case 'sint64':
    case 'sfixed64':
      return String(-9007199254740993n - BigInt(salt));
    case 'uint64':
    case 'fixed64':
      return String(18446744073709551615n - BigInt(salt));
    case 'double':
    case 'float':
      return 1.5;
    default:
      return null;
  }
}

function sample(schema: MessageSchema, depth: number): Record<string, JsonValue> {
  const out: Record<string, JsonValue> = {};
  for (const field of schema.fields) {
    const value = fieldSample(field, depth);
    if (value !== undefined) out[field.name] = value;
  }
  return out;
}

function messageSample(typeName: string, depth: number): JsonValue | undefined {
  if (typeName === 'google.protobuf.Any') return SAMPLE_ANY;
  if (typeName === 'google.protobuf.Timestamp') return '2025-06-01T12:00:00.123Z';
  if (typeName === 'google.protobuf.Duration') return '1.500s';
  if (depth > 3) return undefined;
  const schema = registry.message(typeName);
  return schema ? sample(schema, depth + 1) : undefined;
}

function fieldSample(field: FieldSchema, depth: number): JsonValue | undefined {
  if (field.kind === 'map') {
    const spec = field.mapValue;
    const value =
      spec?.kind === 'message'
        ? messageSample(spec.typeName ?? '', depth)
        : scalarSample(spec?.kind ?? 'string', undefined, 2);
    if (value === undefined) return undefined;
    const key = String(scalarSample(field.mapKey ?? 'string', undefined, 1));
    return { [key]: value };
  }
  const one =
    field.kind === 'message'
      ? messageSample(field.typeName ?? '', depth)
      : scalarSample(field.kind, field, field.no);
  if (one === undefined || one === null) return undefined;
  return field.repeated ? [one, one] : one;
}

describe('schemas agree with the generated codecs', () => {
  const names = [...reflected.messages.keys()].filter(
    (n) => /\.Msg[A-Z]\w*$/.test(n) && !n.endsWith('Response'),
  );

  it('covers the tx message types of every VM and module', () => {
    expect(names.length).toBeGreaterThan(200);
    for (const url of [
      'cosmos.bank.v1beta1.MsgSend',
      'cosmos.authz.v1beta1.MsgExec',
      'cosmos.feegrant.v1beta1.MsgGrantAllowance',
      'cosmos.gov.v1.MsgSubmitProposal',
      'initia.move.v1.MsgExecute',
      'initia.mstaking.v1.MsgDelegate',
      'minievm.evm.v1.MsgCall',
      'minievm.evm.v1.MsgCreate2',
      'cosmwasm.wasm.v1.MsgExecuteContract',
      'ibc.core.channel.v1.MsgRecvPacket',
      'ibc.applications.transfer.v1.MsgTransfer',
      'ibc.applications.nft_transfer.v1.MsgTransfer',
      'cosmos.upgrade.v1beta1.MsgSoftwareUpgrade',
    ]) {
      expect(names, url).toContain(url);
    }
  });

  it('encodes every tx message exactly as its generated codec does, and renders it back', () => {
    const failures: string[] = [];
    for (const name of names) {
      const schema = registry.message(name) as MessageSchema;
      const codec = reflected.codecs.get(name);
      if (!codec) continue;
      const json = sample(schema, 0);
      try {
        const ours = encodeMessage(registry, schema, json, name);
        const theirs = codec.encode(codec.decode(ours)).finish();
        if (Buffer.compare(Buffer.from(ours), Buffer.from(theirs)) !== 0)
          failures.push(`${name}: bytes differ`);
        const problems = newProblems();
        const back = renderMessage(registry, schema, ours, 0, ours.length, problems);
        expect(back, name).toEqual(expect.objectContaining(json));
        if (problems.unknownFields.size > 0)
          failures.push(`${name}: unknown fields ${[...problems.unknownFields].join(',')}`);
      } catch (err) {
        failures.push(`${name}: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    expect(failures).toEqual([]);
  });
});
