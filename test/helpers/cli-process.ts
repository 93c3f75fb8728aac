import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, inject } from 'vitest';

/** `rollup-indexer <args>` as a child process, with its output as lines to wait on. */
export interface CliProcess {
  child: ChildProcess;
  /** Resolves with the first line (stdout or stderr, past or future) that matches. */
  waitForLine(match: RegExp | string): Promise<string>;
  /** The URL from the "listening on http://…" line. */
  url(): Promise<string>;
  /** Polls `GET /metrics` until `rollup_indexer_height` reaches `height`. */
  waitForHeight(height: number): Promise<void>;
  /** Resolves with the exit code (or signal) once the process ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  lastLines(): string;
  kill(signal?: NodeJS.Signals): void;
}

/** `rollup-indexer <args>` from the build test/global-setup.ts made of src/ for this run. */
export function startCli(args: string[], env: Record<string, string>): CliProcess {
  const child = spawn(process.execPath, [inject('cliPath'), ...args], {
    env: { ...process.env, LOG_LEVEL: 'info', LOG_FORMAT: 'json', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const waiters: { match: RegExp | string; resolve: (line: string) => void }[] = [];
  const matches = (line: string, m: RegExp | string) =>
    typeof m === 'string' ? line.includes(m) : m.test(line);
  const onText = (buffer: { rest: string }) => (chunk: string) => {
    const parts = (buffer.rest + chunk).split('\n');
    buffer.rest = parts.pop() ?? '';
    for (const line of parts) {
      lines.push(line);
      for (const w of [...waiters]) {
        if (matches(line, w.match)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(line);
        }
      }
    }
  };
  child.stdout!.setEncoding('utf8').on('data', onText({ rest: '' }));
  child.stderr!.setEncoding('utf8').on('data', onText({ rest: '' }));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const lastLines = () => lines.slice(-30).join('\n');
  const waitForLine = (match: RegExp | string) => {
    const seen = lines.find((l) => matches(l, match));
    if (seen !== undefined) return Promise.resolve(seen);
    return Promise.race([
      new Promise<string>((resolve) => waiters.push({ match, resolve })),
      exited.then(({ code, signal }) => {
        throw new Error(`process exited (code ${code}, signal ${signal}) before "${match}":\n${lastLines()}`);
      }),
    ]);
  };
  const url = async () => /listening on (http:\/\/\S+)/.exec(await waitForLine('listening on'))![1]!;
  return {
    child,
    waitForLine,
    url,
    async waitForHeight(height) {
      const base = (await url()).replace('0.0.0.0', '127.0.0.1');
      for (;;) {
        const text = await fetch(`${base}/metrics`).then(
          (r) => r.text(),
          () => '',
        );
        const current = Number(/^rollup_indexer_height (\d+)/m.exec(text)?.[1] ?? 0);
        if (current >= height) return;
        if (child.exitCode !== null)
          throw new Error(`process exited before height ${height}:\n${lastLines()}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    exited,
    lastLines,
    kill: (signal = 'SIGTERM') => child.kill(signal),
  };
}

/**
 * For one describe block (call it at its top): `cli(args, env)` starts the CLI, and every process
 * it started is killed after the block, whatever the tests did.
 */
export function useCliProcesses(): (args: string[], env?: Record<string, string>) => CliProcess {
  const running: CliProcess[] = [];
  afterAll(() => {
    for (const p of running) p.kill('SIGKILL');
  });
  return (args, env = {}) => {
    const p = startCli(args, env);
    running.push(p);
    return p;
  };
}
