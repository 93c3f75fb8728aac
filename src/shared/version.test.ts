import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { packageVersion } from './version.js';

describe('packageVersion', () => {
  it('is the version package.json declares', async () => {
    const manifest = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    expect(packageVersion()).toBe(manifest.version);
  });
});
