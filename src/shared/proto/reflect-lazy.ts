import { readFileSync } from 'node:fs';
import type { MessageSchema } from './schema.js';
import {
  extractSchema,
  isCodec,
  listJsFiles,
  loadModule,
  oncePerRoots,
  packageRoots,
  type CodecRef,
  type ExtractContext,
  type LoadedModule,
} from './reflect.js';

/** A full proto name's schema, read from the generated packages the first time it is asked. */
export type SchemaLookup = (fullName: string) => MessageSchema | undefined;

const lookups = new Map<string, SchemaLookup>();

/**
 * The schemas reflectPackages gives, each read on first use: loading all ~500 generated modules
 * cost every indexer process (and each prepare thread) ~0.7 s of CPU at start, while a chain's
 * blocks use a few dozen types. Only the module exporting an asked name is loaded (with what it
 * requires); which module that is, is read from the files' text (~25 ms for both packages).
 * Same result as reflectPackages for every name (reflect-lazy.test.ts); one lookup per set of
 * roots per process (per thread), its cache shared by every registry.
 */
export function lazySchemas(roots: string[] = packageRoots()): SchemaLookup {
  return oncePerRoots(lookups, roots, createLookup);
}

function createLookup(roots: string[]): SchemaLookup {
  const index = indexFiles(roots);
  const modules = new Map<string, LoadedModule | undefined>();
  const nameOfCodec = new Map<unknown, string>();
  const schemas = new Map<string, MessageSchema | undefined>();

  const moduleAt = (stem: string): LoadedModule | undefined => {
    if (modules.has(stem)) return modules.get(stem);
    const mod = index.order.has(stem) ? loadModule(`${stem}.js`) : undefined;
    modules.set(stem, mod);
    // A codec is named by the module that exports it, first export first (as reflectPackages).
    for (const [exportName, value] of Object.entries(mod?.exports ?? {})) {
      if (!isCodec(value) || exportName.endsWith('ClientImpl') || nameOfCodec.has(value)) continue;
      nameOfCodec.set(value, `${mod!.pkg}.${exportName.replace(/_/g, '.')}`);
    }
    return mod;
  };
  const ctx: ExtractContext = { moduleAt, nameOf: (codec) => nameOfCodec.get(codec) };

  /** The first module (in reflectPackages' file order) exporting a codec of this full name. */
  const codecRef = (fullName: string): CodecRef | undefined => {
    const parts = fullName.split('.');
    let best: { order: number; ref: CodecRef } | undefined;
    for (let i = 1; i < parts.length; i++) {
      // The one export name reflectPackages reads as this name (`A_B` is `A.B`).
      const exportName = parts.slice(i).join('_');
      for (const stem of index.byPackage.get(parts.slice(0, i).join('.')) ?? []) {
        const order = index.order.get(stem)!;
        if (best && best.order < order) break;
        // Only a module whose text exports the name is loaded.
        if (!index.exportsOf.get(stem)!.has(exportName) || exportName.endsWith('ClientImpl')) continue;
        const mod = moduleAt(stem);
        if (mod && isCodec(mod.exports[exportName])) {
          best = { order, ref: { module: mod, exportName } };
          break;
        }
      }
    }
    return best?.ref;
  };

  return (fullName) => {
    if (!schemas.has(fullName)) {
      const ref = codecRef(fullName);
      schemas.set(fullName, ref && extractSchema(fullName, ref, ctx));
    }
    return schemas.get(fullName);
  };
}

/**
 * Each generated module (path without `.js`) by its proto package, its place in file order and the
 * names it exports, all read from its text.
 */
function indexFiles(roots: string[]) {
  const byPackage = new Map<string, string[]>();
  const order = new Map<string, number>();
  const exportsOf = new Map<string, Set<string>>();
  for (const root of roots) {
    for (const file of listJsFiles(root)) {
      const text = readFileSync(file, 'utf8');
      const pkg = /exports\.protobufPackage = "([^"]*)"/.exec(text)?.[1];
      if (pkg === undefined) continue;
      const stem = file.replace(/\.js$/, '');
      order.set(stem, order.size);
      exportsOf.set(stem, new Set(Array.from(text.matchAll(/exports\.(\w+) =/g), (m) => m[1]!)));
      const stems = byPackage.get(pkg);
      if (stems) stems.push(stem);
      else byPackage.set(pkg, [stem]);
    }
  }
  return { byPackage, order, exportsOf };
}
