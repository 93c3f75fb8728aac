import { describe, expect, it } from 'vitest';
import { createProtoRegistry } from '../../src/shared/proto/registry.js';
import { renderRestTx } from '../../src/shared/proto/tx.js';
import type { VmType } from '../../src/sim/types.js';
import { useSimulators } from './helpers/sims.js';

const registry = createProtoRegistry();
const start = useSimulators();

describe.each<VmType>(['move', 'wasm', 'evm'])('REST tx JSON (%s)', (vm) => {
  it('is, text for text, what src/shared/proto renders from the raw bytes (gateway proto-JSON)', async () => {
    const { urls } = await start({ vm, head: 200, txsPerBlock: '3', seed: 8, fastSignatures: true });
    let compared = 0;
    for (let h = 1; h <= 100; h++) {
      const block = (await (await fetch(`${urls.rpc}/block?height=${h}`)).json()) as {
        result: { block: { data: { txs: string[] } } };
      };
      const rest = await (
        await fetch(`${urls.rest}/cosmos/tx/v1beta1/txs/block/${h}?pagination.limit=100`)
      ).text();
      const txs = (JSON.parse(rest) as { txs: unknown[] }).txs;
      for (const [i, b64] of block.result.block.data.txs.entries()) {
        const rendered = renderRestTx(registry, Buffer.from(b64, 'base64'));
        expect(rendered.unknownTypes).toEqual([]);
        expect(JSON.stringify(txs[i])).toBe(JSON.stringify(rendered.tx));
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(250);
  });
});
