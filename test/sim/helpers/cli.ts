/**
 * `node` arguments that run `rollup-indexer sim` from the source tree with every listener on a
 * free port; the process prints one `sim ready rpc=… rest=… json-rpc=…` line. Shared by the CLI
 * test and the benchmarks (no test-runner imports here).
 */
export function simCliArgv(args: string[]): string[] {
  return [
    '--import',
    'tsx',
    'src/bin/cli.ts',
    'sim',
    '--rpc-port',
    '0',
    '--rest-port',
    '0',
    '--json-rpc-port',
    '0',
    ...args,
  ];
}
