import path from 'node:path';

/** The repository's root: what the tests read, build and lint is found from here. */
export const REPO_ROOT = path.resolve(import.meta.dirname, '../..');
