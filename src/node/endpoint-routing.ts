import type { NodeEndpointView } from '../shared/node-endpoint.js';

/**
 * Which endpoint of a node surface a request goes to, from what the pool knows of each endpoint:
 * its health, its chain and the heights it holds (docs/node-data.md §5). Pure: the transport keeps
 * the state and acts on the route.
 */

/** `unprobed`: not asked yet; `down`: unreachable or failing; `wrong_chain`: serves another chain. */
export type EndpointHealth = NodeEndpointView['health'];

export interface EndpointStatus {
  /** Redacted URL. */
  url: string;
  health: EndpointHealth;
  chainId?: string | undefined;
  /** Lowest height it serves; undefined when the surface does not say (taken as 1). */
  lowest?: number | undefined;
  /** Its head; undefined when the surface does not say (taken as unbounded). */
  highest?: number | undefined;
  /** Why it is down or out. */
  error?: string | undefined;
  /**
   * Heights below this are likely pruned too (a guess past `lowest`, grown by each refusal that
   * named no lowest height): such a span goes elsewhere when another endpoint may serve it.
   */
  avoidBelow?: number | undefined;
}

/** The heights a request reads (a batch spans several). */
export interface HeightSpan {
  from: number;
  to: number;
}

export type Route =
  | { kind: 'endpoint'; index: number }
  /** Nothing reachable holds the span, but these (down or not asked yet) may: wait for them. */
  | { kind: 'wait'; holders: number[] }
  /** Every endpoint is reachable (or of another chain) and none holds the span: no retry helps. */
  | { kind: 'not_held' };

const lowestOf = (ep: EndpointStatus): number => ep.lowest ?? 1;
const highestOf = (ep: EndpointStatus): number => ep.highest ?? Number.POSITIVE_INFINITY;
const mayHold = (ep: EndpointStatus, span: HeightSpan | undefined): boolean =>
  span === undefined || lowestOf(ep) <= span.from;

/**
 * History goes to an endpoint whose lowest height is at or below the span, preferring those not
 * guessed to have pruned it (`avoidBelow`); among those, one whose head reaches the span's end
 * (rotating by `turn`), else the freshest, whose answer for heights past its head is "not produced
 * yet" rather than a failure.
 */
export function routeRequest(
  endpoints: readonly EndpointStatus[],
  span: HeightSpan | undefined,
  turn: number,
): Route {
  const holders = indexesWhere(endpoints, (ep) => ep.health === 'healthy' && mayHold(ep, span));
  if (holders.length === 0) {
    const pending = indexesWhere(
      endpoints,
      (ep) => (ep.health === 'down' || ep.health === 'unprobed') && mayHold(ep, span),
    );
    return pending.length > 0 ? { kind: 'wait', holders: pending } : { kind: 'not_held' };
  }
  const likely = holders.filter((i) => span === undefined || (endpoints[i]!.avoidBelow ?? 0) <= span.from);
  const candidates = likely.length > 0 ? likely : holders;
  const reaching = span ? candidates.filter((i) => highestOf(endpoints[i]!) >= span.to) : candidates;
  if (reaching.length > 0) return { kind: 'endpoint', index: reaching[turn % reaching.length]! };
  const freshest = candidates.reduce((a, b) => (highestOf(endpoints[b]!) > highestOf(endpoints[a]!) ? b : a));
  return { kind: 'endpoint', index: freshest };
}

function indexesWhere(endpoints: readonly EndpointStatus[], test: (ep: EndpointStatus) => boolean): number[] {
  const out: number[] = [];
  endpoints.forEach((ep, i) => {
    if (test(ep)) out.push(i);
  });
  return out;
}

/** Blocks an endpoint's head is behind the freshest known head (0 when either is unknown). */
export function lagBehind(endpoints: readonly EndpointStatus[], ep: EndpointStatus): number {
  const heads = endpoints.filter((e) => e.health === 'healthy' && e.highest !== undefined);
  if (ep.highest === undefined || heads.length === 0) return 0;
  return Math.max(0, Math.max(...heads.map((e) => e.highest!)) - ep.highest);
}

/** One line per endpoint for an error message: where it stands and what it holds. */
export function describeEndpoints(endpoints: readonly EndpointStatus[]): string {
  return endpoints
    .map((ep) => {
      const range = `holds ${lowestOf(ep)}–${ep.highest ?? '?'}`;
      if (ep.health === 'wrong_chain') return `${ep.url} serves another chain (${ep.chainId ?? '?'})`;
      if (ep.health === 'down')
        return `${ep.url} is unreachable (${range} when last seen: ${ep.error ?? ''})`;
      if (ep.health === 'unprobed') return `${ep.url} has not answered yet`;
      return `${ep.url} ${range}`;
    })
    .join('; ');
}

/** The span of a batch's heights (undefined for none). */
export function spanOf(heights: readonly number[]): HeightSpan | undefined {
  if (heights.length === 0) return undefined;
  return { from: Math.min(...heights), to: Math.max(...heights) };
}

/** "height 40" or "heights 40–59". */
export function spanText(span: HeightSpan): string {
  return span.from === span.to ? `height ${span.from}` : `heights ${span.from}–${span.to}`;
}

/** Lowest height any endpoint of the right chain holds (the START_HEIGHT advice of a miss). */
export function lowestHeld(endpoints: readonly EndpointStatus[]): number | undefined {
  const lows = endpoints.filter((ep) => ep.health !== 'wrong_chain').map(lowestOf);
  return lows.length > 0 ? Math.min(...lows) : undefined;
}
