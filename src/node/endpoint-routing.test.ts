import { describe, expect, it } from 'vitest';
import {
  describeEndpoints,
  lagBehind,
  lowestHeld,
  routeRequest,
  spanOf,
  type EndpointStatus,
} from './endpoint-routing.js';

const archive: EndpointStatus = {
  url: 'http://archive',
  health: 'healthy',
  chainId: 'c',
  lowest: 1,
  highest: 1000,
};
const pruned: EndpointStatus = {
  url: 'http://pruned',
  health: 'healthy',
  chainId: 'c',
  lowest: 900,
  highest: 1005,
};
const lagging: EndpointStatus = {
  url: 'http://lagging',
  health: 'healthy',
  chainId: 'c',
  lowest: 1,
  highest: 990,
};
const other: EndpointStatus = {
  url: 'http://other',
  health: 'wrong_chain',
  chainId: 'x',
  lowest: 1,
  highest: 5000,
};

const picks = (eps: EndpointStatus[], from: number, to = from) =>
  new Set(
    [0, 1, 2, 3].map((turn) => {
      const route = routeRequest(eps, { from, to }, turn);
      return route.kind === 'endpoint' ? eps[route.index]!.url : route.kind;
    }),
  );

describe('routeRequest', () => {
  it('sends history below a pruned node only to the archive, never to another chain', () => {
    expect(picks([other, pruned, archive], 40, 59)).toEqual(new Set(['http://archive']));
  });

  it('shares heights both hold, and skips an endpoint whose head is behind the span', () => {
    expect(picks([pruned, archive, lagging], 950, 995)).toEqual(new Set(['http://pruned', 'http://archive']));
    expect(picks([pruned, archive, lagging], 980)).toEqual(
      new Set(['http://pruned', 'http://archive', 'http://lagging']),
    );
  });

  it('sends heights past every known head to the freshest endpoint (it answers "not yet")', () => {
    expect(picks([archive, pruned, lagging], 1003, 1010)).toEqual(new Set(['http://pruned']));
    expect(picks([archive, lagging], 1001)).toEqual(new Set(['http://archive']));
  });

  it('waits when the only holder is down, and names it among the holders', () => {
    const down = { ...archive, health: 'down' as const, error: 'ECONNREFUSED' };
    expect(routeRequest([pruned, down], { from: 40, to: 59 }, 0)).toEqual({ kind: 'wait', holders: [1] });
    // The head is still served by the pruned node meanwhile.
    expect(routeRequest([pruned, down], { from: 1001, to: 1001 }, 0)).toEqual({ kind: 'endpoint', index: 0 });
  });

  it('answers not_held when every endpoint is reachable and none keeps the height', () => {
    const stateSynced = { ...archive, url: 'http://synced', lowest: 500 };
    expect(routeRequest([pruned, stateSynced, other], { from: 40, to: 40 }, 0)).toEqual({ kind: 'not_held' });
  });

  it('treats an unknown range (REST) as holding every height, and a height-less request as any', () => {
    const rest: EndpointStatus = { url: 'http://rest', health: 'healthy', chainId: 'c' };
    expect(routeRequest([rest], { from: 3, to: 9 }, 0)).toEqual({ kind: 'endpoint', index: 0 });
    expect(picks([other, pruned], 0).has('http://other')).toBe(false);
    expect(routeRequest([other, pruned], undefined, 0)).toEqual({ kind: 'endpoint', index: 1 });
    expect(routeRequest([other], undefined, 0)).toEqual({ kind: 'not_held' });
  });

  it('waits for endpoints not probed yet rather than calling a height unheld', () => {
    const unprobed: EndpointStatus = { url: 'http://new', health: 'unprobed' };
    expect(routeRequest([pruned, unprobed], { from: 5, to: 5 }, 0)).toEqual({ kind: 'wait', holders: [1] });
  });
});

describe('helpers', () => {
  it('lag is counted from the freshest healthy head', () => {
    expect(lagBehind([archive, pruned, lagging, other], lagging)).toBe(15);
    expect(lagBehind([archive, pruned], pruned)).toBe(0);
  });

  it('describes every endpoint, the lowest held height and a batch span', () => {
    const down = { ...archive, health: 'down' as const, error: 'ECONNREFUSED' };
    expect(describeEndpoints([pruned, down, other])).toBe(
      'http://pruned holds 900–1005; http://archive is unreachable (holds 1–1000 when last seen: ECONNREFUSED); ' +
        'http://other serves another chain (x)',
    );
    expect(lowestHeld([pruned, other])).toBe(900);
    expect(spanOf([7, 3, 5])).toEqual({ from: 3, to: 7 });
    expect(spanOf([])).toBeUndefined();
  });
});

describe('routeRequest with a guessed pruned stretch (avoidBelow)', () => {
  const restPruned: EndpointStatus = { ...pruned, lowest: 20, highest: undefined, avoidBelow: 52 };
  const restArchive: EndpointStatus = { ...archive, highest: undefined };

  it('prefers an endpoint not guessed to have pruned the span, and uses the guessed one when none is left', () => {
    expect(picks([restPruned, restArchive], 30)).toEqual(new Set(['http://archive']));
    expect(picks([restPruned, restArchive], 52)).toEqual(new Set(['http://pruned', 'http://archive']));
    // The guess only steers: with the archive down, the endpoint that may hold the span is asked.
    const down = { ...restArchive, health: 'down' as const };
    expect(picks([restPruned, down], 30)).toEqual(new Set(['http://pruned']));
  });
});
