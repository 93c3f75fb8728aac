import { readFile, rename, writeFile } from 'node:fs/promises';
import { AppError } from '../shared/errors.js';

/**
 * Local record of an update-scores run, keyed by VM + contract + stage + file hash, so an
 * interrupted run resumes where it stopped instead of re-planning from scratch.
 */
export interface Progress {
  version: 1;
  vm: string;
  contract: string;
  stage: string;
  fileHash: string;
  /** Stage total read before the first batch (to check the result exactly when it was 0). */
  totalBefore: string;
  /** Batch boundaries [from, to) over the normalised entry list. */
  batches: [number, number][];
  done: { index: number; txHash: string }[];
  /** Signed but not yet confirmed: re-sending these exact bytes cannot execute twice. */
  pending?: { index: number; txHash: string; raw: string };
}

export async function readProgress(path: string): Promise<Progress | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    return undefined;
  }
  try {
    return JSON.parse(text) as Progress;
  } catch (err) {
    throw new AppError(
      'bad_progress',
      `progress file ${path} is not valid JSON; move it away to start over`,
      {
        cause: err,
      },
    );
  }
}

/** Atomic replace, so a crash mid-write never leaves half a file. */
export async function writeProgress(path: string, progress: Progress): Promise<void> {
  const tmp = `${path}.tmp`;
  await writeFile(tmp, JSON.stringify(progress, null, 2));
  await rename(tmp, path);
}
