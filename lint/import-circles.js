import path from 'node:path';
import { importsOnDisk, importVisitors, resolveSpecifier } from './module-graph.js';

/**
 * No import circle between the repository's files, `import type` included: a type-only circle
 * compiles, but it ties two modules into one room that cannot be read, moved or tested apart
 * (import-x/no-cycle skips type imports). The linted file's imports are taken from its AST (so
 * lintText sees planted code); the rest of the graph from disk. One report per import that leads
 * back, naming the circle.
 */
export const importCircles = {
  meta: {
    type: 'problem',
    docs: { description: 'Forbid import circles, type-only imports included.' },
    schema: [],
    messages: {
      circle: 'Import circle: {{route}}. Move what both sides need into a module both can import.',
    },
  },
  create(context) {
    const self = path.resolve(context.filename);
    const known = new Set();
    /** The route from `start` back to this file, or undefined; `known` holds files that lead nowhere. */
    const routeBack = (start) => {
      const stack = [{ file: start, route: [start] }];
      while (stack.length > 0) {
        const { file, route } = stack.pop();
        for (const next of importsOnDisk(file)) {
          if (next === self) return route;
          if (known.has(next)) continue;
          known.add(next);
          stack.push({ file: next, route: [...route, next] });
        }
      }
      return undefined;
    };
    const show = (file) => path.relative(context.cwd, file);
    return importVisitors((node, specifier) => {
      const target = resolveSpecifier(self, specifier);
      if (target === undefined || !target.endsWith('.ts') || target === self || known.has(target)) return;
      known.add(target);
      const route = routeBack(target);
      if (route !== undefined)
        context.report({
          node,
          messageId: 'circle',
          data: { route: [self, ...route, self].map(show).join(' → ') },
        });
    });
  },
};
