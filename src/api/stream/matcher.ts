import type { StreamReader, TxEdge, TxFamily } from '../../store/readers/stream.js';
import type { DictionaryIds } from './dictionary-ids.js';
import type { Subscriber } from './subscriber.js';
import type { SubscriberIndex } from './subscriber-index.js';

/** Who each tx of a chunk goes to. */
export interface ChunkMatch {
  subscribersOf(sequence: number): Iterable<Subscriber>;
}

/**
 * Matches one chunk (after, upto] against the route's subscriber index: unfiltered subscribers
 * take every tx; the chunk's edges are read once for all the others (one bounded index range per
 * subscribed account or type that exists), so a tx costs its own accounts, not the subscribers.
 */
export async function matchChunk(
  reader: StreamReader,
  ids: { accounts: DictionaryIds; msgTypes: DictionaryIds },
  index: SubscriberIndex,
  chunk: { family: TxFamily; after: number; upto: number },
): Promise<ChunkMatch> {
  const { unfiltered, typeOnly, byAccount } = index;
  if (byAccount.size === 0 && typeOnly.size === 0) return { subscribersOf: () => unfiltered };

  const [accountIds, typeIds] = await Promise.all([
    ids.accounts.resolve(byAccount.keys(), (hexes) =>
      reader.accountIds(hexes.map((h) => Buffer.from(h, 'hex'))),
    ),
    ids.msgTypes.resolve(index.msgNames(), (missing) => reader.msgTypeIds(missing)),
  ]);
  const [accountEdges, typeEdges] = await Promise.all([
    reader.accountEdges(chunk.family, [...accountIds.values()], chunk.after, chunk.upto),
    reader.msgTypeEdges([...typeIds.values()], chunk.after, chunk.upto),
  ]);
  const typeName = new Map([...typeIds].map(([name, id]) => [id, name]));
  const accountHex = new Map([...accountIds].map(([hex, id]) => [id, hex]));
  const typesOf = groupBySequence(typeEdges, (e) => typeName.get(e.id)!);
  const accountsOf = groupBySequence(accountEdges, (e) => e);
  const typeMatches = (s: Subscriber, types: readonly string[] | undefined) =>
    s.filter.msgNames === undefined || (types ?? []).some((t) => s.filter.msgNames!.has(t));

  return {
    *subscribersOf(sequence) {
      yield* unfiltered;
      const types = typesOf.get(sequence);
      if (types?.length === 1) yield* typeOnly.get(types[0]!) ?? [];
      else if (types !== undefined) {
        // A subscriber asking for two of the tx's types gets it once.
        const seen = new Set<Subscriber>();
        for (const t of types) for (const s of typeOnly.get(t) ?? []) seen.add(s);
        yield* seen;
      }
      for (const edge of accountsOf.get(sequence) ?? []) {
        for (const s of byAccount.get(accountHex.get(edge.id)!) ?? []) {
          if ((!s.filter.signerOnly || edge.signer) && typeMatches(s, types)) yield s;
        }
      }
    },
  };
}

function groupBySequence<T>(edges: readonly TxEdge[], pick: (e: TxEdge) => T): Map<number, T[]> {
  const out = new Map<number, T[]>();
  for (const e of edges) {
    const list = out.get(e.sequence);
    if (list) list.push(pick(e));
    else out.set(e.sequence, [pick(e)]);
  }
  return out;
}
