/**
 * Builds the preset deflate dictionary of stored tx texts (docs/ingest.md §9.2) and measures it.
 *
 *   npx tsx bench/scale/tx-dictionary.ts [--write]
 *
 * Sources, both already in the repository: the tx detail answers of the golden fixtures
 * (test/fixtures/golden/{move,wasm,evm}.json.gz: simulator chains of each VM, every stage on, the
 * exact stored text) and the real REST tx responses of test/fixtures/chain-samples/real-tx-decoder
 * (L1, moo-1, yominet-1; MIT, see its SOURCE.md). The dictionary is deflate's 32 KB window: first
 * the quoted JSON tokens (keys, values and the punctuation after them) that most documents share,
 * ranked by documents × length; then the last 8 KB of the sample documents interleaved across VMs
 * (whole-document structure is what deflate's nearest matches reuse). Every other document trains,
 * the rest are held out; `--write` builds from all of them and rewrites
 * src/wire/tx-dictionary-v1.ts. A shipped version is never rewritten: a better dictionary is a new
 * version (docs/ingest.md §9.2). Prints one JSON object: mean deflated bytes per held-out document.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { deflateRawSync, gunzipSync } from 'node:zlib';

const { values: args } = parseArgs({ options: { write: { type: 'boolean', default: false } } });
const WINDOW = 32_768;
const DOCUMENT_TAIL = 8_192;
const VMS = ['move', 'wasm', 'evm'] as const;

function goldenTxs(vm: string): string[] {
  const golden = JSON.parse(
    gunzipSync(readFileSync(`test/fixtures/golden/${vm}.json.gz`)).toString('utf8'),
  ) as Record<string, string>;
  const out: string[] = [];
  for (const [route, answer] of Object.entries(golden)) {
    if (!route.startsWith('/indexer/tx/v1/txs/') || !answer.startsWith('200')) continue;
    const body = answer.slice(answer.indexOf('\n') + 1);
    out.push(/^\{"tx":(.*)\}$/s.exec(body)?.[1] ?? body);
  }
  return out.sort();
}

function realTxs(): string[] {
  const out: string[] = [];
  const visit = (o: unknown): void => {
    if (!o || typeof o !== 'object') return;
    if (!Array.isArray(o) && 'txhash' in o && 'tx' in o) {
      out.push(JSON.stringify(o));
      return;
    }
    for (const v of Object.values(o)) visit(v);
  };
  const walk = (dir: string): void => {
    for (const f of readdirSync(dir).sort()) {
      const p = path.join(dir, f);
      if (statSync(p).isDirectory()) walk(p);
      else if (f.endsWith('.json') && f !== 'INDEX.json') visit(JSON.parse(readFileSync(p, 'utf8')));
    }
  };
  walk('test/fixtures/chain-samples/real-tx-decoder');
  return out;
}

/** Quoted tokens shared by at least two documents, the most valuable last (nearest the text). */
function frequentTokens(docs: readonly string[], room: number): string {
  const documents = new Map<string, number>();
  for (const doc of docs) {
    const seen = new Set<string>();
    for (const m of doc.matchAll(/"[^"]{2,200}"[:,\]}]*/g)) seen.add(m[0]);
    for (const t of seen) documents.set(t, (documents.get(t) ?? 0) + 1);
  }
  const ranked = [...documents]
    .filter(([, n]) => n >= 2)
    .map(([t, n]) => ({ t, score: n * t.length }))
    .sort((a, b) => b.score - a.score || (a.t < b.t ? -1 : 1));
  const picked: string[] = [];
  let bytes = 0;
  for (const { t } of ranked) {
    const size = Buffer.byteLength(t);
    if (bytes + size > room) continue;
    picked.push(t);
    bytes += size;
  }
  return picked.reverse().join('');
}

/** The documents interleaved across sets (first documents nearest the end), last `room` bytes. */
function documentTail(sets: readonly (readonly string[])[], room: number): string {
  let text = '';
  const longest = Math.max(...sets.map((s) => s.length));
  for (let i = 0; i < longest && Buffer.byteLength(text) < room; i++) {
    for (const set of sets) if (set[i] !== undefined) text = set[i] + text;
  }
  return Buffer.from(text)
    .subarray(-room)
    .toString('utf8')
    .replace(/^\uFFFD+/, '');
}

function build(sets: readonly (readonly string[])[]): string {
  const tail = documentTail(sets, DOCUMENT_TAIL);
  return frequentTokens(sets.flat(), WINDOW - Buffer.byteLength(tail)) + tail;
}

const meanDeflated = (docs: readonly string[], dictionary?: Buffer) =>
  Math.round(
    docs.reduce(
      (sum, d) => sum + (dictionary ? deflateRawSync(d, { dictionary }) : deflateRawSync(d)).length,
      0,
    ) / docs.length,
  );

const sets = [...VMS.map(goldenTxs), realTxs()];
const names = [...VMS, 'real'];
const train = sets.map((s) => s.filter((_, i) => i % 2 === 0));
const held = sets.map((s) => s.filter((_, i) => i % 2 === 1));
const trial = Buffer.from(build(train));
const heldOut = Object.fromEntries(
  held.map((docs, i) => [
    names[i],
    {
      docs: docs.length,
      raw: Math.round(docs.reduce((s, d) => s + Buffer.byteLength(d), 0) / docs.length),
      deflate: meanDeflated(docs),
      withDictionary: meanDeflated(docs, trial),
    },
  ]),
);
const dictionary = build(sets);
if (args.write) {
  const chunks = dictionary.match(/[\s\S]{1,100}/g) ?? [];
  writeFileSync(
    'src/wire/tx-dictionary-v1.ts',
    `/**\n * Preset deflate dictionary, version 1, of stored tx texts (docs/ingest.md §9.2). Generated by\n` +
      ` * bench/scale/tx-dictionary.ts from the golden fixtures' tx answers and the real chain samples;\n` +
      ` * never edited or rebuilt: rows packed with it are read with exactly these bytes.\n */\n` +
      `export const TX_DICTIONARY_V1 = [\n${chunks.map((c) => `  ${JSON.stringify(c)},`).join('\n')}\n].join('');\n`,
  );
}
console.log(JSON.stringify({ bytes: Buffer.byteLength(dictionary), written: args.write, heldOut }, null, 2));
