import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * The repository's own import graph as the lint rules see it: relative specifiers only (packages
 * are not followed), `import type`, `export … from` and `import()` included. A file's edges are read
 * with TypeScript's pre-processor (no type check) and kept while its mtime is unchanged.
 */
const edgesByFile = new Map();

/** The file a relative specifier names (absolute); undefined for a package. */
export function resolveSpecifier(fromFile, specifier) {
  if (!specifier.startsWith('./') && !specifier.startsWith('../')) return undefined;
  const target = path.resolve(path.dirname(fromFile), specifier);
  // `./x.js` names x.ts, unless a real x.js is there (a file being linted may not be on disk yet).
  if (target.endsWith('.js') && !existsSync(target)) return `${target.slice(0, -3)}.ts`;
  return target;
}

/** The files `file` imports (absolute paths), read from disk. */
export function importsOnDisk(file) {
  let mtimeMs;
  try {
    mtimeMs = statSync(file).mtimeMs;
  } catch {
    return [];
  }
  const cached = edgesByFile.get(file);
  if (cached !== undefined && cached.mtimeMs === mtimeMs) return cached.targets;
  const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  const targets = [
    ...new Set(
      importedFiles.map((f) => resolveSpecifier(file, f.fileName)).filter((t) => t?.endsWith('.ts')),
    ),
  ];
  edgesByFile.set(file, { mtimeMs, targets });
  return targets;
}

/** The AST nodes of a file that import another module, with the specifier each names. */
export function importVisitors(onImport) {
  const literal = (node, source) => {
    if (source?.type === 'Literal' && typeof source.value === 'string') onImport(node, source.value);
  };
  return {
    ImportDeclaration: (node) => literal(node, node.source),
    ExportNamedDeclaration: (node) => literal(node, node.source),
    ExportAllDeclaration: (node) => literal(node, node.source),
    ImportExpression: (node) => literal(node, node.source),
    TSImportType: (node) =>
      literal(node, node.argument?.type === 'TSLiteralType' ? node.argument.literal : node.argument),
  };
}
