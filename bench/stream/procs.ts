/** Child processes of bench/stream/subscribers.ts and what /proc says about them. */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';

const log = (message: string) => process.stderr.write(`[bench:streams] ${message}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * `rollup-indexer <argv>` from the sources; `nodeFlags` go to node (e.g. `--cpu-prof`); with
 * `logsToStderr` the child's stdout (its logs) goes to our stderr, keeping our stdout for results.
 */
export function spawnCli(
  argv: string[],
  env: Record<string, string>,
  options: { nodeFlags?: string[]; logsToStderr?: boolean } = {},
): ChildProcess {
  const nodeArgs = [...(options.nodeFlags ?? []), '--import', 'tsx', 'src/bin/cli.ts', ...argv];
  const child = spawn(process.execPath, nodeArgs, {
    env: { ...process.env, LOG_LEVEL: 'warn', LOG_FORMAT: 'json', ...env },
    stdio: ['ignore', options.logsToStderr ? 2 : 'inherit', 'inherit'],
  });
  child.once('exit', (code, signal) => {
    if (code !== 0 && signal !== 'SIGTERM') log(`${argv[0]} exited (code ${code}, signal ${signal})`);
  });
  return child;
}

export function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGCONT');
    child.kill('SIGTERM');
  });
}

/** utime + stime in ms (clock ticks are 10 ms on Linux). */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

export function rssKb(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);
}

export async function waitForHttp(url: string, child: ChildProcess): Promise<void> {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${url}: the process exited`);
    if (
      await fetch(url).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    await sleep(100);
  }
}
