import { beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import type { Simulator, SimulatorUrls } from '../../src/sim/types.js';
import { REAL_SAMPLES } from '../fixtures/decode/samples.js';
import type { Ev } from './helpers/events.js';
import { useSimulators } from './helpers/sims.js';

const DIR = REAL_SAMPLES;
const start = useSimulators();
let sim: Simulator;
let urls: SimulatorUrls;
beforeAll(async () => {
  ({ sim, urls } = await start({ vm: 'move', replay: DIR }));
});

describe('--replay of recorded tx_responses', () => {
  it('serves each recorded tx in its own block with its exact events and tx JSON', async () => {
    expect(sim.head()).toBeGreaterThan(30);
    for (let h = 1; h <= sim.head(); h++) {
      const block = (await (await fetch(`${urls.rpc}/block?height=${h}`)).json()) as {
        result: { block: { data: { txs: string[] } } };
      };
      const results = (await (await fetch(`${urls.rpc}/block_results?height=${h}`)).json()) as {
        result: { txs_results: Array<{ events: Ev[] }> };
      };
      const rest = (await (await fetch(`${urls.rest}/cosmos/tx/v1beta1/txs/block/${h}`)).json()) as {
        txs: unknown[];
      };
      expect(block.result.block.data.txs).toHaveLength(1);
      const raw = Buffer.from(block.result.block.data.txs[0]!, 'base64');
      const truth = sim.truth.block(h).txs[0]!;
      expect(createHash('sha256').update(raw).digest('hex').toUpperCase()).toBe(truth.hash);
      const byHash = (await (await fetch(`${urls.rest}/cosmos/tx/v1beta1/txs/${truth.hash}`)).json()) as {
        tx_response: {
          events: Array<{ type: string; attributes: Array<{ key: string; value: string }> }>;
          tx: Record<string, unknown>;
        };
      };
      const { '@type': type, ...tx } = byHash.tx_response.tx;
      expect(type).toBe('/cosmos.tx.v1beta1.Tx');
      expect(rest.txs[0]).toEqual(tx);
      const simple = (events: Ev[]): unknown =>
        events.map((e) => [e.type, (e.attributes ?? []).map((a) => [a.key, a.value ?? ''])]);
      expect(simple(results.result.txs_results[0]!.events)).toEqual(simple(byHash.tx_response.events));
      expect(truth.accounts).toContain(truth.signer);
    }
  });
});
