import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { EnumSchema, FieldSchema, MessageSchema, ScalarKind } from './schema.js';
import { makeMessageSchema, snakeFromCamel } from './schema.js';

/**
 * Builds field schemas from the generated ts-proto modules of `@initia/initia.proto` and
 * `cosmjs-types`. Neither package ships descriptors, so the generated `encode` source (one
 * `writer.uint32(tag)` per field, in declaration order) and `toJSON` source (enum converters)
 * are read once at start-up. A codec whose encode body is not fully understood is left out, so
 * its messages are reported as unknown rather than rendered wrongly.
 */

// Generated code is untyped CommonJS; `any` here is confined to reading module exports.
/* eslint-disable @typescript-eslint/no-explicit-any */
type ModuleExports = Record<string, any>;

export interface LoadedModule {
  readonly file: string;
  readonly pkg: string;
  readonly exports: ModuleExports;
  readonly aliases: Map<string, string>;
}

export interface CodecRef {
  readonly module: LoadedModule;
  readonly exportName: string;
}

export interface GeneratedCodec {
  encode(message: unknown): { finish(): Uint8Array };
  decode(input: Uint8Array): unknown;
}

export interface ReflectResult {
  readonly messages: ReadonlyMap<string, MessageSchema>;
  /** The generated codec behind each schema (tests cross-check the schemas against them). */
  readonly codecs: ReadonlyMap<string, GeneratedCodec>;
  /** Codecs whose encode body could not be read, by full name (for diagnostics). */
  readonly skipped: readonly string[];
}

const SCALARS = new Set<string>([
  'string',
  'bytes',
  'bool',
  'int32',
  'uint32',
  'sint32',
  'fixed32',
  'sfixed32',
  'int64',
  'uint64',
  'sint64',
  'fixed64',
  'sfixed64',
  'double',
  'float',
]);

const requireCjs = createRequire(import.meta.url);

export function packageRoots(): string[] {
  const initia = path.dirname(requireCjs.resolve('@initia/initia.proto/package.json'));
  const cosmjs = path.dirname(requireCjs.resolve('cosmjs-types/binary'));
  // Order matters: the first definition of a full name wins. initia.proto follows the
  // Initia SDK fork that rollups run, cosmjs-types fills in what it lacks.
  return [initia, cosmjs];
}

export function listJsFiles(dir: string, out: string[] = []): string[] {
  // Sorted by name as readdirSync's names sort; the entries' types spare a stat per file.
  const entries = readdirSync(dir, { withFileTypes: true });
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) listJsFiles(full, out);
    else if (entry.name.endsWith('.js') && !['index.js', 'helpers.js', 'binary.js'].includes(entry.name)) {
      out.push(full);
    }
  }
  return out;
}

export function loadModule(file: string): LoadedModule | undefined {
  const text = readFileSync(file, 'utf8');
  const pkgMatch = /exports\.protobufPackage = "([^"]*)"/.exec(text);
  if (!pkgMatch) return undefined;
  const aliases = new Map<string, string>();
  for (const m of text.matchAll(/const (\w+) = require\("([^"]+)"\);/g)) {
    const [, alias, spec] = m;
    if (alias && spec?.startsWith('.')) aliases.set(alias, path.resolve(path.dirname(file), spec));
  }
  return { file, pkg: pkgMatch[1] ?? '', exports: requireCjs(file) as ModuleExports, aliases };
}

export function isCodec(value: unknown): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as ModuleExports)['encode'] === 'function' &&
    typeof (value as ModuleExports)['decode'] === 'function'
  );
}

/**
 * What `make` builds from a set of package roots, built once per process (per thread) and shared:
 * the generated packages do not change while a process runs.
 */
export function oncePerRoots<T>(cache: Map<string, T>, roots: string[], make: (roots: string[]) => T): T {
  const key = roots.join('\0');
  let made = cache.get(key);
  if (made === undefined) {
    made = make(roots);
    cache.set(key, made);
  }
  return made;
}

const reflections = new Map<string, ReflectResult>();

/**
 * Every generated module's schema and codec, by full proto name. Reading the packages costs ~0.7 s
 * of CPU and ~6 MB, and they do not change while a process runs, so each set of roots is read once
 * per process (per thread) and the result shared: callers read it, never change it.
 */
export function reflectPackages(roots: string[] = packageRoots()): ReflectResult {
  return oncePerRoots(reflections, roots, readPackages);
}

/** Load every generated module and index codecs by full proto name. */
function readPackages(roots: string[]): ReflectResult {
  const byName = new Map<string, CodecRef>();
  const nameOfCodec = new Map<unknown, string>();
  const modulesByFile = new Map<string, LoadedModule>();
  for (const root of roots) {
    for (const file of listJsFiles(root)) {
      const mod = loadModule(file);
      if (!mod) continue;
      modulesByFile.set(file.replace(/\.js$/, ''), mod);
      for (const [exportName, value] of Object.entries(mod.exports)) {
        if (!isCodec(value) || exportName.endsWith('ClientImpl')) continue;
        const fullName = `${mod.pkg}.${exportName.replace(/_/g, '.')}`;
        if (!nameOfCodec.has(value)) nameOfCodec.set(value, fullName);
        if (!byName.has(fullName)) byName.set(fullName, { module: mod, exportName });
      }
    }
  }
  const ctx: ExtractContext = {
    moduleAt: (file) => modulesByFile.get(file),
    nameOf: (codec) => nameOfCodec.get(codec),
  };
  const messages = new Map<string, MessageSchema>();
  const codecs = new Map<string, GeneratedCodec>();
  const skipped: string[] = [];
  for (const [fullName, ref] of byName) {
    const schema = extractSchema(fullName, ref, ctx);
    if (schema) {
      messages.set(fullName, schema);
      codecs.set(fullName, ref.module.exports[ref.exportName] as GeneratedCodec);
    } else skipped.push(fullName);
  }
  return { messages, codecs, skipped };
}

/** How extraction finds the modules a codec refers to, and the full name of a referenced codec. */
export interface ExtractContext {
  /** The module at a path without `.js` (a `require("./x")` resolved). */
  moduleAt(file: string): LoadedModule | undefined;
  nameOf(codec: unknown): string | undefined;
}

/** Resolve `exports.X`, `alias_1.X` or a bare `X` written inside a module. */
function resolveRef(expr: string, mod: LoadedModule, ctx: ExtractContext): unknown {
  const dot = expr.lastIndexOf('.');
  if (dot < 0) return mod.exports[expr];
  const owner = expr.slice(0, dot);
  const name = expr.slice(dot + 1);
  if (owner === 'exports') return mod.exports[name];
  const target = mod.aliases.get(owner);
  if (!target) return undefined;
  return ctx.moduleAt(target)?.exports[name];
}

// One alternative per statement shape that ts-proto (both generations) writes in `encode`.
const FIELD_RE = new RegExp(
  [
    // packed repeated scalar: writer.uint32(T).fork(); for (const v of message.F) { writer.K(v); }
    String.raw`writer\.uint32\((?<pT>\d+)\)\.fork\(\);\s*for \(const v of message\.(?<pF>\w+)\) \{(?:\s*if \([^\n]*\n[^\n]*\n\s*\})?\s*writer\.(?<pK>\w+)\(v!?\);`,
    // map: Object.entries(message.F).forEach(... C.encode({ key: key, value }, writer.uint32(T)
    String.raw`Object\.entries\(message\.(?<mF>\w+)\)\.forEach\(\(\[key, value\]\) => \{\s*(?<mC>[\w.$]+)\.encode\(\{ key: key, value:? ?\w* ?\}, writer\.uint32\((?<mT>\d+)\)`,
    // repeated message: for (const v of message.F) { C.encode(v, writer.uint32(T).fork())
    String.raw`for \(const v of message\.(?<rF>\w+)\) \{\s*(?<rC>[\w.$]+)\.encode\(v!?, writer\.uint32\((?<rT>\d+)\)\.fork\(\)\)`,
    // repeated scalar (unpacked): for (const v of message.F) { writer.uint32(T).K(v); }
    String.raw`for \(const v of message\.(?<uF>\w+)\) \{\s*writer\.uint32\((?<uT>\d+)\)\.(?<uK>\w+)\(v!?\)`,
    // singular message: C.encode([toTimestamp(]message.F[)], writer.uint32(T).fork())
    String.raw`(?<sC>[\w.$]+)\.encode\((?:toTimestamp\()?message\.(?<sF>\w+)\)?, writer\.uint32\((?<sT>\d+)\)\.fork\(\)\)`,
    // singular scalar: writer.uint32(T).K(message.F)
    String.raw`writer\.uint32\((?<aT>\d+)\)\.(?<aK>\w+)\(message\.(?<aF>\w+)\)`,
  ].join('|'),
  'g',
);

export function extractSchema(
  fullName: string,
  ref: CodecRef,
  ctx: ExtractContext,
): MessageSchema | undefined {
  const codec = ref.module.exports[ref.exportName] as ModuleExports;
  const encodeSrc = String(codec['encode']);
  const toJsonSrc = typeof codec['toJSON'] === 'function' ? String(codec['toJSON']) : '';
  const base = baseValues(codec);
  const fields: FieldSchema[] = [];
  let matched = 0;
  for (const m of encodeSrc.matchAll(FIELD_RE)) {
    const field = fieldFromMatch(m.groups ?? {}, fullName, ref, ctx, toJsonSrc, base);
    if (!field) return undefined;
    fields.push(field);
    matched++;
  }
  const writes = (encodeSrc.match(/writer\.uint32\(\d+\)/g) ?? []).length;
  if (writes !== matched) return undefined;
  return makeMessageSchema(fullName, fields);
}

/** Defaults of a fresh message: `undefined` on a scalar marks a oneof member. */
function baseValues(codec: ModuleExports): Record<string, unknown> {
  try {
    if (typeof codec['fromPartial'] === 'function') return codec['fromPartial']({});
  } catch {
    // fall through: treat as no information
  }
  return {};
}

function fieldFromMatch(
  g: Record<string, string | undefined>,
  fullName: string,
  ref: CodecRef,
  ctx: ExtractContext,
  toJsonSrc: string,
  base: Record<string, unknown>,
): FieldSchema | undefined {
  const mod = ref.module;
  const common = { oneof: false, nonNullable: false, rawJson: false, packed: false };
  if (g['pT']) {
    const kind = scalarKind(g['pK'], g['pF'], toJsonSrc, mod, ctx);
    if (!kind) return undefined;
    return field(g['pT'], g['pF'], kind.kind, true, { ...common, packed: true }, kind.enumSchema);
  }
  if (g['mT']) return mapField(g, mod, ctx, common);
  if (g['rT']) {
    const typeName = ctx.nameOf(resolveRef(g['rC'] ?? '', mod, ctx));
    if (!typeName) return undefined;
    return { ...field(g['rT'], g['rF'], 'message', true, common), typeName };
  }
  if (g['uT']) {
    const kind = scalarKind(g['uK'], g['uF'], toJsonSrc, mod, ctx);
    if (!kind) return undefined;
    const rawJson = isRawJson(fullName, g['uF']);
    return field(g['uT'], g['uF'], kind.kind, true, { ...common, rawJson }, kind.enumSchema);
  }
  if (g['sT']) {
    const typeName = ctx.nameOf(resolveRef(g['sC'] ?? '', mod, ctx));
    if (!typeName) return undefined;
    const oneof = ONEOF_MESSAGE_FIELDS.has(`${fullName}.${g['sF']}`);
    const nonNullable = !oneof && NON_NULLABLE_TYPES.has(typeName);
    return { ...field(g['sT'], g['sF'], 'message', false, { ...common, oneof, nonNullable }), typeName };
  }
  const kind = scalarKind(g['aK'], g['aF'], toJsonSrc, mod, ctx);
  if (!kind) return undefined;
  const oneof = (g['aF'] ?? '') in base && base[g['aF'] ?? ''] === undefined;
  const rawJson = isRawJson(fullName, g['aF']);
  return field(g['aT'], g['aF'], kind.kind, false, { ...common, oneof, rawJson }, kind.enumSchema);
}

function field(
  tag: string | undefined,
  prop: string | undefined,
  kind: FieldSchema['kind'],
  repeated: boolean,
  flags: { oneof: boolean; nonNullable: boolean; rawJson: boolean; packed: boolean },
  enumSchema?: EnumSchema,
): FieldSchema {
  const schema: FieldSchema = {
    no: Number(tag) >>> 3,
    name: snakeFromCamel(prop ?? ''),
    kind,
    repeated,
    ...flags,
  };
  return enumSchema ? { ...schema, enumSchema } : schema;
}

function mapField(
  g: Record<string, string | undefined>,
  mod: LoadedModule,
  ctx: ExtractContext,
  common: { oneof: boolean; nonNullable: boolean; rawJson: boolean; packed: boolean },
): FieldSchema | undefined {
  const entryCodec = resolveRef(g['mC'] ?? '', mod, ctx);
  const entryName = ctx.nameOf(entryCodec);
  if (!entryName) return undefined;
  const entrySrc = String((entryCodec as ModuleExports)['encode']);
  const keyKind = /writer\.uint32\(\d+\)\.(\w+)\(message\.key\)/.exec(entrySrc)?.[1];
  if (!keyKind || !SCALARS.has(keyKind)) return undefined;
  const valueMsg = /([\w.$]+)\.encode\(message\.value, writer/.exec(entrySrc)?.[1];
  let mapValue: NonNullable<FieldSchema['mapValue']>;
  if (valueMsg) {
    const typeName = ctx.nameOf(resolveRef(valueMsg, mod, ctx));
    if (!typeName) return undefined;
    mapValue = { kind: 'message', typeName };
  } else {
    const valueKind = /writer\.uint32\(\d+\)\.(\w+)\(message\.value\)/.exec(entrySrc)?.[1];
    if (!valueKind || !SCALARS.has(valueKind)) return undefined;
    mapValue = { kind: valueKind as ScalarKind };
  }
  return {
    ...field(g['mT'], g['mF'], 'map', false, common),
    mapKey: keyKind as ScalarKind,
    mapValue,
  };
}

/** A varint int32 is an enum when toJSON converts it with a `xxxToJSON` function. */
function scalarKind(
  writerMethod: string | undefined,
  prop: string | undefined,
  toJsonSrc: string,
  mod: LoadedModule,
  ctx: ExtractContext,
): { kind: ScalarKind; enumSchema?: EnumSchema } | undefined {
  if (!writerMethod || !SCALARS.has(writerMethod)) return undefined;
  if (writerMethod !== 'int32') return { kind: writerMethod as ScalarKind };
  const re = new RegExp(
    String.raw`obj\.${prop} = [^;]*?(?:\(0, )?((?:[\w$]+\.)?[a-z][\w$]*ToJSON)\)?\((?:message\.${prop}|e)\)`,
  );
  const fn = re.exec(toJsonSrc)?.[1];
  if (!fn) return { kind: 'int32' };
  const enumSchema = enumFromConverter(fn, mod, ctx);
  return enumSchema ? { kind: 'enum', enumSchema } : undefined;
}

function enumFromConverter(fnRef: string, mod: LoadedModule, ctx: ExtractContext): EnumSchema | undefined {
  const dot = fnRef.lastIndexOf('.');
  const owner = dot < 0 ? '' : fnRef.slice(0, dot + 1);
  const fnName = fnRef.slice(dot + 1);
  const enumName = fnName.charAt(0).toUpperCase() + fnName.slice(1, -'ToJSON'.length);
  const enumObj = resolveRef(`${owner}${enumName}`, mod, ctx);
  if (typeof enumObj !== 'object' || enumObj === null) return undefined;
  const names = new Map<number, string>();
  const values = new Map<string, number>();
  for (const [key, value] of Object.entries(enumObj as Record<string, unknown>)) {
    if (typeof value === 'number' && value >= -2147483648 && key !== 'UNRECOGNIZED') {
      if (!names.has(value)) names.set(value, key);
      values.set(key, value);
    }
  }
  const ownerModule =
    owner === '' || owner === 'exports.' ? mod : ctx.moduleAt(mod.aliases.get(owner.slice(0, -1)) ?? '');
  return { fullName: `${ownerModule?.pkg ?? mod.pkg}.${enumName}`, names, values };
}

/** Message-typed oneof members cannot be told from plain message fields in generated code. */
const ONEOF_MESSAGE_FIELDS = new Set<string>([
  'cosmos.tx.v1beta1.ModeInfo.single',
  'cosmos.tx.v1beta1.ModeInfo.multi',
  'tendermint.types.Evidence.duplicateVoteEvidence',
  'tendermint.types.Evidence.lightClientAttackEvidence',
]);

/**
 * gogoproto `nullable=false` is invisible in generated JS. Singular fields of these types are
 * declared non-nullable throughout the SDK and IBC tx messages, so when a (JS) client leaves
 * them out the gateway still writes their zero value (e.g. MsgTransfer.timeout_height), not null.
 */
const NON_NULLABLE_TYPES = new Set([
  'cosmos.base.v1beta1.Coin',
  'cosmos.base.v1beta1.DecCoin',
  'ibc.core.client.v1.Height',
]);

/** cosmwasm `RawContractMessage` fields: bytes that the REST gateway writes as inline JSON. */
function isRawJson(fullName: string, prop: string | undefined): boolean {
  if (!fullName.startsWith('cosmwasm.wasm.v1.')) return false;
  return prop === 'msg' || (fullName === 'cosmwasm.wasm.v1.AcceptedMessagesFilter' && prop === 'messages');
}
