/** The built CLI run as a deployment by the many-rollups benches (bench/ingest/rollups*.ts). */
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { VmType } from '../../src/sim/types.js';

export interface CliRun {
  child: ReturnType<typeof spawn>;
  /** The API's base URL, once its ready line is printed. */
  listening: Promise<string>;
  /** Its CPU seconds and peak RSS, once it exits. */
  exited: Promise<{ cpu: number; rssMb: number }>;
  /** Everything it wrote to stderr so far. */
  stderr(): string;
  /** Everything it wrote to stdout so far (its log lines). */
  stdout(): string;
}

/**
 * The CLI at `cli` under /usr/bin/time (with `nodeArgs` before its script), in its own process
 * group so that a stop reaches the CLI under /usr/bin/time too.
 */
export function runCli(cli: string, args: string[], env: NodeJS.ProcessEnv, nodeArgs: string[] = []): CliRun {
  const child = spawn(
    '/usr/bin/time',
    ['-f', 'TIME %U %S %M', process.execPath, ...nodeArgs, path.resolve(cli), ...args],
    { env: { ...process.env, LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true },
  );
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  // Read, not only piped: an undrained pipe would block the CLI's log writes once it is full.
  let stdout = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  const listening = new Promise<string>((resolve) => {
    child.stderr!.on('data', () => {
      const m = /listening on (http:\/\/\S+)/.exec(stderr);
      if (m) resolve(m[1]!);
    });
  });
  const exited = new Promise<{ cpu: number; rssMb: number }>((resolve, reject) => {
    child.once('exit', (code) => {
      const m = /^TIME (\S+) (\S+) (\d+)$/m.exec(stderr);
      if (code !== 0 || !m) reject(new Error(`cli exited with ${code}: ${stderr.slice(-1500)}`));
      else resolve({ cpu: Number(m[1]) + Number(m[2]), rssMb: Math.round(Number(m[3]) / 1024) });
    });
  });
  return { child, listening, exited, stderr: () => stderr, stdout: () => stdout };
}

export function chainsFileEntry(
  chainId: string,
  vm: VmType,
  urls: { rpc: string; rest: string; jsonRpc?: string | undefined },
) {
  return {
    chain_id: chainId,
    vm,
    rpc: urls.rpc,
    rest: urls.rest,
    ...(urls.jsonRpc ? { json_rpc: urls.jsonRpc } : {}),
  };
}

export async function writeChainsFile(dir: string, entries: unknown[]): Promise<string> {
  const file = path.join(dir, 'chains.json');
  await writeFile(file, JSON.stringify({ chains: entries }));
  return file;
}

/** Each chain's indexed height, from the deployment's /chains. */
export async function indexedHeights(url: string): Promise<Map<string, number>> {
  const body = (await (await fetch(`${url}/chains`)).json()) as {
    chains: Array<{ chain_id: string; indexed_height: number }>;
  };
  return new Map(body.chains.map((c) => [c.chain_id, c.indexed_height]));
}

/** Each chain's first moment at or past `height`, from the deployment's /chains. */
export async function watchHeights(url: string, height: number, ids: string[], done: Promise<unknown>) {
  const reached = new Map<string, number>();
  let over = false;
  void done.catch(() => undefined).finally(() => (over = true));
  while (!over && reached.size < ids.length) {
    try {
      for (const [id, h] of await indexedHeights(url))
        if (h >= height && !reached.has(id)) reached.set(id, performance.now());
    } catch {
      // The process is starting or stopping.
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return reached;
}

/** Each chain's commits so far (`rollup_indexer_db_write_seconds` count and sum), from /metrics. */
export async function commitTotals(url: string): Promise<Map<string, { count: number; seconds: number }>> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const totals = new Map<string, { count: number; seconds: number }>();
  for (const m of text.matchAll(
    /^rollup_indexer_db_write_seconds_(sum|count)\{chain_id="([^"]+)"\} (\S+)$/gm,
  )) {
    const t = totals.get(m[2]!) ?? { count: 0, seconds: 0 };
    if (m[1] === 'sum') t.seconds = Number(m[3]);
    else t.count = Number(m[3]);
    totals.set(m[2]!, t);
  }
  return totals;
}
