/**
 * CPU seconds of the calling thread (user + system, `/proc/thread-self/stat`): a worker thread's
 * share of its process, which `process.cpuUsage()` (the whole process) cannot give. Linux only.
 */
import { readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's CPU fields (USER_HZ, 100 on Linux). */
const TICKS = 100;

export function threadCpuSeconds(): number {
  const stat = readFileSync('/proc/thread-self/stat', 'utf8');
  // Fields after the parenthesised name: state is field 3, utime 14, stime 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS;
}
