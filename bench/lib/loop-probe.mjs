// Preloaded by a bench into a process it measures (`node --import <this file> …`): on SIGUSR2 it
// writes the event-loop delay since the last signal to stderr as one line,
// `loop-delay {"p50":…,"p99":…,"max":…}` (ms beyond the 10 ms sampling interval, as
// bench/lib/loop-delay.ts reads its own), and starts afresh. Nothing else in the process changes.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import process from 'node:process';

const histogram = monitorEventLoopDelay({ resolution: 10 });
histogram.enable();
const ms = (ns) => Math.max(0, Math.round(ns / 1e4) / 100 - 10);
process.on('SIGUSR2', () => {
  const out = {
    p50: ms(histogram.percentile(50)),
    p99: ms(histogram.percentile(99)),
    max: ms(histogram.max),
  };
  histogram.reset();
  process.stderr.write(`loop-delay ${JSON.stringify(out)}\n`);
});
