import type { Progress } from '../ingest/pipeline.js';

/**
 * A one-line progress display on a TTY: height, blocks/s, txs/s and ETA over a sliding window.
 * Writes to stderr so stdout stays clean for piping.
 */
export function createProgressBar(stream: NodeJS.WriteStream = process.stderr): {
  update(p: Progress): void;
  done(): void;
} {
  const samples: { t: number; blocks: number; txs: number }[] = [];
  let lastDraw = 0;
  let drawn = false;
  return {
    update(p) {
      const now = Date.now();
      samples.push({ t: now, blocks: p.blocks, txs: p.txs });
      while (samples.length > 2 && now - samples[0]!.t > 5_000) samples.shift();
      if (now - lastDraw < 200) return;
      lastDraw = now;
      const first = samples[0]!;
      const seconds = Math.max((now - first.t) / 1000, 0.001);
      const blocksPerSec = (p.blocks - first.blocks) / seconds;
      const txsPerSec = (p.txs - first.txs) / seconds;
      const behind = Math.max(p.nodeHeight - p.height, 0);
      const eta =
        blocksPerSec > 0 && behind > 0
          ? formatDuration(behind / blocksPerSec)
          : behind === 0
            ? 'synced'
            : '…';
      const pct = p.nodeHeight > 0 ? ((100 * p.height) / p.nodeHeight).toFixed(1) : '0.0';
      const line =
        `height ${p.height.toLocaleString('en-US')}/${p.nodeHeight.toLocaleString('en-US')} (${pct}%)` +
        ` | ${Math.round(blocksPerSec).toLocaleString('en-US')} blocks/s` +
        ` | ${Math.round(txsPerSec).toLocaleString('en-US')} txs/s | ETA ${eta}`;
      stream.write(`\r\x1b[2K${line}`);
      drawn = true;
    },
    done() {
      if (drawn) stream.write('\n');
    },
  };
}

function formatDuration(seconds: number): string {
  if (seconds < 60) return `${Math.ceil(seconds)}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m${Math.round(seconds % 60)}s`;
  return `${Math.floor(seconds / 3600)}h${Math.round((seconds % 3600) / 60)}m`;
}
