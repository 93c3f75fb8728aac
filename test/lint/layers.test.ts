import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ESLint } from 'eslint';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/repo-root.js';

/**
 * The lint rules that keep src/ in rooms (lint/layers.js, lint/import-circles.js), run through
 * ESLint's Node API with the repository's own eslint.config.js on planted code.
 */

async function ruleMessages(eslint: ESLint, code: string, filePath: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? [])
    .filter((m) => m.ruleId?.startsWith('rooms/'))
    .map((m) => `${m.ruleId}: ${m.message}`);
}

describe('layers', () => {
  const eslint = new ESLint({ cwd: REPO_ROOT });

  it('reports a store file importing the API, type-only or not', async () => {
    const runtime = await ruleMessages(
      eslint,
      "import { createApiApp } from '../api/app.js';\nexport const app = createApiApp;\n",
      path.join(REPO_ROOT, 'src/store/planted.ts'),
    );
    expect(runtime).toEqual([
      expect.stringContaining('rooms/layers: src/store/ may not import src/api/app.ts'),
    ]);
    const typeOnly = await ruleMessages(
      eslint,
      "import type { StreamHub } from '../../api/stream/hub.js';\nexport type Hub = StreamHub;\n",
      path.join(REPO_ROOT, 'src/store/readers/planted.ts'),
    );
    expect(typeOnly).toEqual([
      expect.stringContaining('src/store/readers/ may not import src/api/stream/hub.ts'),
    ]);
  });

  it('reports ingest importing the API and the API importing ingest', async () => {
    const fromIngest = await ruleMessages(
      eslint,
      "export { renderBlock } from '../api/render.js';\n",
      path.join(REPO_ROOT, 'src/ingest/planted.ts'),
    );
    expect(fromIngest).toHaveLength(1);
    const fromApi = await ruleMessages(
      eslint,
      "export type { PreparedBlock } from '../ingest/prepare/block.js';\n",
      path.join(REPO_ROOT, 'src/api/planted.ts'),
    );
    expect(fromApi).toEqual([expect.stringContaining('src/api/ may not import src/ingest/prepare/block.ts')]);
  });

  it('lets a room import the rooms below it', async () => {
    const legal = await ruleMessages(
      eslint,
      [
        "import { AppError } from '../shared/errors.js';",
        "import type { Db } from '../store/driver/db.js';",
        "import type { BlockReader } from '../store/readers/blocks.js';",
        'export type Both = [AppError, Db, BlockReader];',
        '',
      ].join('\n'),
      path.join(REPO_ROOT, 'src/api/planted.ts'),
    );
    expect(legal).toEqual([]);
  });
});

describe('import circles', () => {
  // A tree of its own, so the circle's other side is a real file that nothing else depends on.
  let root: string;
  let eslint: ESLint;
  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'lint-circles-'));
    await mkdir(path.join(root, 'src/shared'), { recursive: true });
    await writeFile(
      path.join(root, 'src/shared/hub.ts'),
      "import type { Counters } from './counters.js';\nexport interface Hub { counters: Counters }\n",
    );
    await writeFile(path.join(root, 'src/shared/plain.ts'), 'export interface Plain { n: number }\n');
    eslint = new ESLint({ cwd: root, overrideConfigFile: path.join(REPO_ROOT, 'eslint.config.js') });
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('reports a circle made of type-only imports', async () => {
    const messages = await ruleMessages(
      eslint,
      "import type { Hub } from './hub.js';\nexport interface Counters { hub: Hub }\n",
      path.join(root, 'src/shared/counters.ts'),
    );
    expect(messages).toEqual([
      'rooms/import-circles: Import circle: src/shared/counters.ts → src/shared/hub.ts → src/shared/counters.ts. ' +
        'Move what both sides need into a module both can import.',
    ]);
  });

  it('does not report an import that leads nowhere back', async () => {
    const messages = await ruleMessages(
      eslint,
      "import type { Plain } from './plain.js';\nexport interface Counters { plain: Plain }\n",
      path.join(root, 'src/shared/counters.ts'),
    );
    expect(messages).toEqual([]);
  });

  it('finds no circle in the repository', async () => {
    const results = await new ESLint({ cwd: REPO_ROOT }).lintFiles(['src/api/stream/', 'src/store/readers/']);
    const circles = results.flatMap((r) => r.messages.filter((m) => m.ruleId === 'rooms/import-circles'));
    expect(circles).toEqual([]);
  });
});
