import type { Command } from 'commander';
import { AppError, errorMessage } from '../shared/errors.js';

/**
 * Parse and run; a failure prints one clear line (code + message) to stderr and exits non-zero.
 * Stack traces are shown only with DEBUG=1, never for expected, typed errors.
 */
export async function runCli(program: Command, argv: string[]): Promise<void> {
  try {
    await program.parseAsync(argv);
  } catch (err) {
    const code = err instanceof AppError ? err.code : 'internal';
    console.error(`error [${code}]: ${errorMessage(err)}`);
    if (process.env.DEBUG === '1' && err instanceof Error) console.error(err.stack);
    process.exitCode = err instanceof AppError && err.code !== 'internal' ? 2 : 1;
  }
}
