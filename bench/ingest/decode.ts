/**
 * Decode throughput: raw tx bytes → DecodedTx (hash, REST tx object + API JSON text, msg types,
 * signer) + account extraction + per-tx response JSON, over a mix of the real samples
 * (Move, Wasm, EVM, IBC with big light-client headers, OPinit) and initia.js-signed txs.
 *
 *   npx tsx bench/ingest/decode.ts [--seconds 5]
 */
import { reflectPackages } from '../../src/shared/proto/reflect.js';
import { createProtoRegistry } from '../../src/shared/proto/registry.js';
import { encodeTxFromRestJson } from '../../src/shared/proto/tx.js';
import { createAccountNormaliser, extractAccounts } from '../../src/ingest/decode/accounts.js';
import { renderEventsJson, renderTxResponseJson } from '../../src/wire/tx.js';
import { createTxDecoder } from '../../src/ingest/decode/tx.js';
import { loadRealTxSamples, loadSignedTxs } from '../../test/fixtures/decode/samples.js';

const secondsArg = process.argv.indexOf('--seconds');
const seconds = secondsArg > 0 ? Number(process.argv[secondsArg + 1]) : 5;

const t0 = performance.now();
const registry = createProtoRegistry();
const registryMs = performance.now() - t0;
const decoder = createTxDecoder({ registry, prefix: 'init' });
const normalise = createAccountNormaliser('init');

interface Item {
  base64: string;
  events: Parameters<typeof extractAccounts>[0];
  bytes: number;
  ibc: boolean;
}

const items: Item[] = [];
for (const s of loadRealTxSamples()) {
  const { ['@type']: _wrapper, ...tx } = s.response.tx;
  const bytes = encodeTxFromRestJson(registry, tx);
  const ibc =
    s.response.tx.body['messages'] instanceof Array && JSON.stringify(tx).includes('MsgUpdateClient');
  items.push({
    base64: Buffer.from(bytes).toString('base64'),
    events: s.response.events,
    bytes: bytes.length,
    ibc,
  });
}
for (const s of loadSignedTxs()) {
  items.push({ base64: s.base64, events: [], bytes: Buffer.from(s.base64, 'base64').length, ibc: false });
}

function run(set: Item[], budgetMs: number): { txs: number; ms: number } {
  const start = performance.now();
  let txs = 0;
  while (performance.now() - start < budgetMs) {
    for (const item of set) {
      const decoded = decoder.decodeTx(item.base64);
      extractAccounts(item.events, decoded.signer, { prefix: 'init', normalise });
      renderTxResponseJson({
        hash: decoded.hash,
        height: 1,
        result: { gas_wanted: '1', gas_used: '1' },
        restTxJson: decoded.restTxJson,
        blockTime: '2025-01-01T00:00:00.123Z',
        eventsJson: renderEventsJson(item.events),
      });
      txs++;
    }
  }
  return { txs, ms: performance.now() - start };
}

function runDecodeOnly(set: Item[], budgetMs: number): { txs: number; ms: number } {
  const start = performance.now();
  let txs = 0;
  while (performance.now() - start < budgetMs) {
    for (const item of set) {
      decoder.decodeTx(item.base64);
      txs++;
    }
  }
  return { txs, ms: performance.now() - start };
}

run(items, 500); // warm-up
const all = run(items, seconds * 1000);
const small = items.filter((i) => !i.ibc);
const smallRun = run(small, seconds * 1000);
const decodeOnly = runDecodeOnly(small, seconds * 1000);

console.log(
  JSON.stringify(
    {
      bench: 'decode',
      registry_build_ms: Math.round(registryMs),
      // The registry reads types on first use: the packages' full count comes from reading them all.
      registry_messages: reflectPackages().messages.size,
      mix_txs: items.length,
      mix_avg_bytes: Math.round(items.reduce((a, i) => a + i.bytes, 0) / items.length),
      mix_txs_per_s: Math.round((all.txs / all.ms) * 1000),
      without_ibc_update_client_txs_per_s: Math.round((smallRun.txs / smallRun.ms) * 1000),
      without_ibc_decode_tx_only_per_s: Math.round((decodeOnly.txs / decodeOnly.ms) * 1000),
      without_ibc_avg_bytes: Math.round(small.reduce((a, i) => a + i.bytes, 0) / small.length),
      note: 'single core; includes decode, REST render, API JSON text, signer (cached), accounts, tx response JSON',
    },
    null,
    1,
  ),
);
