import { spawn } from 'node:child_process';

/**
 * The ingest commands run with a 64 MB young-generation semi-space (V8's default is 16 MB): a
 * block's decode and render garbage then dies in the young generation instead of being promoted,
 * ~8 % less indexer CPU per block (docs/benchmarks.md) for ~90 MB more peak RSS. V8 sizes the
 * heap when the process starts (v8.setFlagsFromString has no effect on it later), so the CLI
 * starts itself again with the flag. An operator's own setting, on the command line or in
 * NODE_OPTIONS, is kept as is and nothing is relaunched.
 */
const SEMI_SPACE_FLAG = '--max-semi-space-size';
const INGEST_SEMI_SPACE_MB = 64;
const INGEST_COMMANDS = new Set(['start', 'indexer']);
/** Set in the relaunched process's environment only: it has a launcher to follow. */
const RELAUNCHED_ENV = 'ROLLUP_INDEXER_RELAUNCHED';
const FORWARDED_SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/** The node arguments to relaunch with, or undefined when this process should run the command. */
export function relaunchArgs(
  argv: readonly string[],
  execArgv: readonly string[],
  env: NodeJS.ProcessEnv,
): string[] | undefined {
  if (!INGEST_COMMANDS.has(argv[2] ?? '') || env[RELAUNCHED_ENV] !== undefined) return undefined;
  const set = (flags: readonly string[]) => flags.some((f) => f.startsWith(SEMI_SPACE_FLAG));
  if (set(execArgv) || set((env.NODE_OPTIONS ?? '').split(/\s+/))) return undefined;
  return [...execArgv, `${SEMI_SPACE_FLAG}=${INGEST_SEMI_SPACE_MB}`, ...argv.slice(1)];
}

/**
 * Runs the command in a child and mirrors it: the same stdio, the signals passed on, its exit
 * code or signal as ours. The child has its own process group, so a terminal's Ctrl-C reaches it
 * once (through us) rather than twice; if we are killed outright it sees its IPC channel close
 * and kills itself, so no writer outlives the process a supervisor knows.
 */
export function runRelaunched(nodeArgs: string[]): Promise<never> {
  const child = spawn(process.execPath, nodeArgs, {
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    detached: true,
    env: { ...process.env, [RELAUNCHED_ENV]: '1' },
  });
  for (const signal of FORWARDED_SIGNALS) process.on(signal, () => child.kill(signal));
  return new Promise<never>(() => {
    child.once('error', (err) => {
      console.error(`error [relaunch]: cannot start ${process.execPath}: ${err.message}`);
      process.exit(1);
    });
    child.once('exit', (code, signal) => {
      if (signal === null) process.exit(code ?? 1);
      for (const s of FORWARDED_SIGNALS) process.removeAllListeners(s);
      process.kill(process.pid, signal);
    });
  });
}

/** In a relaunched process: end with the launcher, and keep our children from thinking they were relaunched. */
export function followLauncher(): void {
  if (process.env[RELAUNCHED_ENV] === undefined) return;
  delete process.env[RELAUNCHED_ENV];
  // The channel only tells us the launcher is gone; it must not keep the process alive.
  process.channel?.unref();
  process.once('disconnect', () => process.kill(process.pid, 'SIGKILL'));
}
