import type { Subscriber } from './subscriber.js';

/**
 * One route's subscribers, indexed by what they filter on, kept up to date as they subscribe and
 * close: matching a chunk never walks every subscriber to rebuild it.
 */
export interface SubscriberIndex {
  add(sub: Subscriber): void;
  remove(sub: Subscriber): void;
  readonly size: number;
  all(): IterableIterator<Subscriber>;
  /** Subscribers with no filter: they take every item. */
  readonly unfiltered: ReadonlySet<Subscriber>;
  /** Subscribers filtered by message type only, by each type they ask for. */
  readonly typeOnly: ReadonlyMap<string, ReadonlySet<Subscriber>>;
  /** Subscribers filtered by account (with or without types), by the account's lower-case hex. */
  readonly byAccount: ReadonlyMap<string, ReadonlySet<Subscriber>>;
  /** Every message type name some subscriber asks for. */
  msgNames(): IterableIterator<string>;
}

export function createSubscriberIndex(): SubscriberIndex {
  const all = new Set<Subscriber>();
  const unfiltered = new Set<Subscriber>();
  const typeOnly = new Map<string, Set<Subscriber>>();
  const byAccount = new Map<string, Set<Subscriber>>();
  const addTo = (map: Map<string, Set<Subscriber>>, key: string, sub: Subscriber) => {
    const set = map.get(key);
    if (set) set.add(sub);
    else map.set(key, new Set([sub]));
  };
  const removeFrom = (map: Map<string, Set<Subscriber>>, key: string, sub: Subscriber) => {
    const set = map.get(key);
    set?.delete(sub);
    if (set?.size === 0) map.delete(key);
  };
  // How many subscribers ask for each type, so a type leaves the index with its last subscriber.
  const names = new Map<string, number>();

  return {
    add(sub) {
      if (all.has(sub)) return;
      all.add(sub);
      const { accountHex, msgNames } = sub.filter;
      for (const name of msgNames ?? []) names.set(name, (names.get(name) ?? 0) + 1);
      if (accountHex !== undefined) addTo(byAccount, accountHex, sub);
      else if (msgNames !== undefined) for (const name of msgNames) addTo(typeOnly, name, sub);
      else unfiltered.add(sub);
    },
    remove(sub) {
      if (!all.delete(sub)) return;
      const { accountHex, msgNames } = sub.filter;
      for (const name of msgNames ?? []) {
        const left = (names.get(name) ?? 1) - 1;
        if (left === 0) names.delete(name);
        else names.set(name, left);
      }
      if (accountHex !== undefined) removeFrom(byAccount, accountHex, sub);
      else if (msgNames !== undefined) for (const name of msgNames) removeFrom(typeOnly, name, sub);
      else unfiltered.delete(sub);
    },
    get size() {
      return all.size;
    },
    all: () => all.values(),
    unfiltered,
    typeOnly,
    byAccount,
    msgNames: () => names.keys(),
  };
}
