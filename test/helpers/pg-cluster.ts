import { execFile } from 'node:child_process';
import { chmod, chown, mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { missingRequirementMessage, pgServerRequirement } from './requirements.js';

const run = promisify(execFile);

/** A private PostgreSQL cluster on a free port, to stop, start and break without touching the shared one. */
export interface PgCluster {
  port: number;
  dataDir: string;
  url(database?: string): string;
  start(): Promise<void>;
  /** `pg_ctl stop -m fast`: connections are dropped, new ones refused. */
  stop(): Promise<void>;
  /** Runs SQL as the superuser (postgres database). */
  sql<Row = Record<string, unknown>>(text: string, params?: unknown[]): Promise<Row[]>;
  dispose(): Promise<void>;
}

/** The server binaries' directory, looked up once per test process (see requirements.ts). */
let binDir: Promise<string> | undefined;
function pgBinDir(): Promise<string> {
  binDir ??= pgServerRequirement().then((req) => {
    if (!req.binDir) throw new Error(missingRequirementMessage(req));
    return req.binDir;
  });
  return binDir;
}

/** Runs a PostgreSQL binary; as root, as the `postgres` OS user (initdb refuses root). */
function pgRunner(asRoot: boolean) {
  return async (bin: string, args: string[]) => {
    const file = path.join(await pgBinDir(), bin);
    return asRoot ? run('runuser', ['-u', 'postgres', '--', file, ...args]) : run(file, args);
  };
}

/** A temp directory the server's OS user owns. */
async function serverRoot(): Promise<{ root: string; asRoot: boolean }> {
  const root = await mkdtemp(path.join(tmpdir(), 'ri-pg-'));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const { stdout: uid } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    await chown(root, Number(uid), Number(gid));
    await chmod(root, 0o700);
  }
  return { root, asRoot };
}

/**
 * A new cluster (initdb) on a free port, trust auth on 127.0.0.1 unless a password or other
 * pg_hba rules are given; replication connections are allowed (for createStandby).
 */
export async function createPgCluster(
  options: {
    /** Superuser password (scram-sha-256 over TCP); none = trust. */
    password?: string;
    /** pg_hba.conf lines for TCP; the default trusts 127.0.0.1. */
    hba?: string[];
  } = {},
): Promise<PgCluster> {
  const { root, asRoot } = await serverRoot();
  const dataDir = path.join(root, 'data');
  const pwfile = path.join(root, 'pw');
  await writeFile(pwfile, options.password ?? 'unused');
  await chmod(pwfile, 0o644);
  await pgRunner(asRoot)('initdb', [
    ...['-D', dataDir, '-A', 'trust', '-U', 'postgres', '--pwfile', pwfile, '--no-sync', '-E', 'UTF8'],
  ]);
  const method = options.password === undefined ? 'trust' : 'scram-sha-256';
  const tcp = options.hba ?? [
    `host all all 127.0.0.1/32 ${method}`,
    `host replication all 127.0.0.1/32 ${method}`,
  ];
  // The helper's own SQL goes through the socket, whatever the TCP rules say.
  await writeFile(path.join(dataDir, 'pg_hba.conf'), ['local all all trust', ...tcp, ''].join('\n'));
  return startedCluster(root, dataDir, asRoot, options.password);
}

/** A streaming replica of `primary` (pg_basebackup -R), on its own free port. */
export async function createStandby(primary: PgCluster): Promise<PgCluster> {
  const { root, asRoot } = await serverRoot();
  const dataDir = path.join(root, 'data');
  await pgRunner(asRoot)('pg_basebackup', [
    ...['-h', '127.0.0.1', '-p', String(primary.port), '-U', 'postgres', '-D', dataDir, '-R', '-X', 'stream'],
  ]);
  return startedCluster(root, dataDir, asRoot, undefined);
}

async function startedCluster(
  root: string,
  dataDir: string,
  asRoot: boolean,
  password: string | undefined,
): Promise<PgCluster> {
  const pgRun = pgRunner(asRoot);
  const port = await freePort();
  const serverOptions = `-p ${port} -k ${root} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off`;
  const cluster: PgCluster = {
    port,
    dataDir,
    url: (database = 'postgres') =>
      `postgres://postgres${password === undefined ? '' : `:${password}`}@127.0.0.1:${port}/${database}`,
    async start() {
      // -w: returns once the server accepts connections.
      await pgRun('pg_ctl', [
        '-D',
        dataDir,
        '-o',
        serverOptions,
        '-l',
        path.join(root, 'log'),
        '-w',
        'start',
      ]);
    },
    async stop() {
      await pgRun('pg_ctl', ['-D', dataDir, '-m', 'fast', '-w', 'stop']);
    },
    async sql<Row>(text: string, params: unknown[] = []) {
      const client = new pg.Client({ host: root, port, user: 'postgres', database: 'postgres' });
      await client.connect();
      try {
        return (await client.query(text, params)).rows as Row[];
      } finally {
        await client.end();
      }
    },
    async dispose() {
      await cluster.stop().catch(() => undefined);
      await rm(root, { recursive: true, force: true });
    },
  };
  await cluster.start();
  return cluster;
}

/** A port that was free a moment ago on 127.0.0.1 (for a process restarted on the same port). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}
