import type { AbciEvent } from '../../node/types.js';

/** One balance change: `amount` (signed) of `denom` for an account (its normalised bytes, hex). */
export interface BalanceDelta {
  denom: string;
  account: string;
  amount: bigint;
}

const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const ZERO_TOPIC = '0x' + '0'.repeat(64);

interface EvmLog {
  address?: unknown;
  topics?: unknown;
  data?: unknown;
}

/**
 * EVM: every ERC20 Transfer log found in a `log` attribute of any event (docs/ingest.md §8.3),
 * keyed by the lower-cased contract. ERC721 Transfers carry a fourth topic and are not counted.
 */
export function erc20Deltas(events: readonly AbciEvent[]): BalanceDelta[] {
  const out: BalanceDelta[] = [];
  for (const e of events) {
    for (const a of e.attributes) {
      if (a.key !== 'log') continue;
      const log = parseLog(a.value);
      if (!log) continue;
      const denom = log.address.toLowerCase();
      if (log.from !== ZERO_TOPIC) out.push({ denom, account: topicAccount(log.from), amount: -log.amount });
      if (log.to !== ZERO_TOPIC) out.push({ denom, account: topicAccount(log.to), amount: log.amount });
    }
  }
  return out;
}

function parseLog(text: string): { address: string; from: string; to: string; amount: bigint } | undefined {
  let log: EvmLog;
  try {
    log = JSON.parse(text) as EvmLog;
  } catch {
    return undefined;
  }
  const topics = log.topics;
  if (!Array.isArray(topics) || topics.length !== 3 || String(topics[0]).toLowerCase() !== TRANSFER_TOPIC) {
    return undefined;
  }
  if (typeof log.address !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(log.address)) return undefined;
  const [from, to] = [String(topics[1]).toLowerCase(), String(topics[2]).toLowerCase()];
  if (!/^0x[0-9a-f]{64}$/.test(from) || !/^0x[0-9a-f]{64}$/.test(to)) return undefined;
  const data = typeof log.data === 'string' && /^0x[0-9a-fA-F]*$/.test(log.data) ? log.data : undefined;
  if (data === undefined) return undefined;
  return { address: log.address, from, to, amount: data === '0x' ? 0n : BigInt(data) };
}

/** The 20-byte account in a 32-byte topic, as hex. */
const topicAccount = (topic: string): string => topic.slice(-40);

/** Sums deltas per (denom, account); pairs that net to zero are kept (they were touched). */
export function sumDeltas(deltas: Iterable<BalanceDelta>): Map<string, BalanceDelta> {
  const sums = new Map<string, BalanceDelta>();
  for (const d of deltas) {
    const key = `${d.denom}|${d.account}`;
    const prev = sums.get(key);
    sums.set(key, prev ? { ...prev, amount: prev.amount + d.amount } : { ...d });
  }
  return sums;
}
