import type { Progress } from '../ingest/pipeline.js';
import { CAUGHT_UP_BLOCKS } from '../shared/chain-condition.js';

export type IngestPhase = 'starting' | 'database' | 'node' | 'ingesting' | 'stopping';

/** What the ingest process is doing, for `/ready` from its first second on. */
export interface IngestState {
  phase(): IngestPhase;
  enter(phase: IngestPhase, reason: string): void;
  /** Something the current phase waits for failed and is being retried (shown by /ready). */
  trouble(reason: string): void;
  progress(p: Pick<Progress, 'height' | 'nodeHeight'>): void;
  readiness(): { ready: boolean; reason?: string };
}

export function createIngestState(): IngestState {
  let phase: IngestPhase = 'starting';
  let reason = 'starting';
  let trouble: string | undefined;
  let height = 0;
  let nodeHeight = 0;
  return {
    phase: () => phase,
    enter(next, why) {
      phase = next;
      reason = why;
      trouble = undefined;
    },
    trouble(why) {
      trouble = why;
    },
    progress(p) {
      height = p.height;
      nodeHeight = p.nodeHeight;
      trouble = undefined;
    },
    readiness() {
      if (trouble !== undefined && phase !== 'ingesting') return { ready: false, reason: trouble };
      if (phase !== 'ingesting') return { ready: false, reason };
      if (height === 0) return { ready: false, reason: 'catching up: no block indexed yet' };
      if (nodeHeight - height > CAUGHT_UP_BLOCKS)
        return { ready: false, reason: `catching up: height ${height} of ${nodeHeight}` };
      return { ready: true };
    },
  };
}
