import { setFlagsFromString } from 'node:v8';

/**
 * How far V8 lets the old generation grow past what the last full collection kept, in percent,
 * in a deployment (docs/chains.md §8). V8's own choice goes up to 300 (4x what is live) on a
 * machine with a large heap limit; with many chains feeding one heap that headroom, mostly
 * garbage, is most of what each chain adds at the peak.
 */
export const DEPLOYMENT_HEAP_GROWING_PERCENT = 100;

/**
 * Caps the heap's growth for a deployment's process, unless node's own command line already
 * set it (`node --heap-growing-percent=N cli.js start`: the operator's choice wins). V8 reads the
 * setting at each full collection, so setting it once the process runs takes effect. A V8 flag is
 * the whole process's: the commands that run a deployment call this (`start`/`indexer` with a
 * chains file, `demo --rollups`), not runDeploymentProcess, which tests also run in their own
 * process.
 */
export function capHeapGrowth(execArgv: readonly string[] = process.execArgv): void {
  if (execArgv.some((arg) => /^--heap[-_]growing[-_]percent\b/.test(arg))) return;
  setFlagsFromString(`--heap-growing-percent=${DEPLOYMENT_HEAP_GROWING_PERCENT}`);
}
