import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDbFactories } from '../helpers/db.js';
import { createHarness, type Harness } from './harness.js';

const STREAM = '/indexer/stream/v1';

/**
 * docs/stream.md §1–§3: a stream request with bad input, a resume point past the replay bound or
 * no room left gets the error JSON before anything is streamed.
 */
describe.each(testDbFactories())('stream routes refuse before opening, on $name', (factory) => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness(factory, { vm: 'evm', blocks: 25 });
  });
  afterAll(async () => {
    await h?.dispose();
  });

  const expectError = async (
    app: Harness['app'],
    request: { url: string; headers?: Record<string, string> },
    status: number,
    code: number,
    message: string | RegExp,
  ) => {
    const res = await app.inject({ method: 'GET', ...request });
    expect(res.statusCode, `${request.url}: ${res.body.slice(0, 300)}`).toBe(status);
    expect(res.headers['content-type']).toBe('application/json');
    const body = JSON.parse(res.body) as { code: number; message: string; details: unknown[] };
    expect(body.code).toBe(code);
    expect(body.details).toEqual([]);
    if (typeof message === 'string') expect(body.message).toBe(message);
    else expect(body.message).toMatch(message);
  };

  it('names the bad parameter, like the list routes', async () => {
    await expectError(
      h.app,
      { url: `${STREAM}/txs?account=zz` },
      400,
      3,
      '[INVALID_VALUE] invalid value for account: zz (invalid address format)',
    );
    await expectError(
      h.app,
      { url: `${STREAM}/evm-txs?account=0xzz` },
      400,
      3,
      /invalid value for account: 0xzz/,
    );
    await expectError(h.app, { url: `${STREAM}/txs?is_signer=true` }, 400, 3, 'is_signer needs account');
    await expectError(
      h.app,
      { url: `${STREAM}/txs?last_event_id=abc` },
      400,
      3,
      'last_event_id must be an event id (an integer ≥ 0), got "abc"',
    );
    await expectError(h.app, { url: `${STREAM}/blocks?last_event_id=-1` }, 400, 3, /^last_event_id must be/);
    await expectError(
      h.app,
      { url: `${STREAM}/blocks`, headers: { 'last-event-id': 'x1' } },
      400,
      3,
      /^Last-Event-ID header must be/,
    );
    await expectError(
      h.app,
      { url: `${STREAM}/blocks?from_height=0` },
      400,
      3,
      'from_height must be a height ≥ 1, got "0"',
    );
    // The header wins over the query (a browser reconnects to the same URL and adds it).
    await expectError(
      h.app,
      { url: `${STREAM}/blocks?last_event_id=5`, headers: { 'last-event-id': 'nope' } },
      400,
      3,
      /^Last-Event-ID header/,
    );
    const post = await h.app.inject({ method: 'POST', url: `${STREAM}/txs` });
    expect(post.statusCode).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD');
  });

  it('refuses a resume point past API_STREAM_MAX_REPLAY with 410, naming the route to page', async () => {
    const app = await h.appWith({ API_STREAM_MAX_REPLAY: '3' });
    await expectError(
      app,
      { url: `${STREAM}/blocks?from_height=1` },
      410,
      11,
      /page \/indexer\/block\/v1\/blocks up to height 25, then resume with last_event_id=25$/,
    );
    await expectError(
      app,
      { url: `${STREAM}/txs?last_event_id=0` },
      410,
      11,
      /page \/indexer\/tx\/v1\/txs up to sequence \d+, then resume with last_event_id=\d+$/,
    );
    await expectError(
      app,
      { url: `${STREAM}/evm-txs`, headers: { 'last-event-id': '0' } },
      410,
      11,
      /page \/indexer\/tx\/v1\/evm-txs up to/,
    );
  });

  it('answers 503 past API_STREAM_MAX_SUBSCRIBERS, and HEAD without a stream', async () => {
    const full = await h.appWith({ API_STREAM_MAX_SUBSCRIBERS: '0' });
    await expectError(
      full,
      { url: `${STREAM}/txs` },
      503,
      14,
      'too many open streams (API_STREAM_MAX_SUBSCRIBERS=0)',
    );
    const head = await h.app.inject({ method: 'HEAD', url: `${STREAM}/blocks` });
    expect(head.statusCode).toBe(200);
    expect(head.headers['content-type']).toBe('text/event-stream');
    expect(head.body).toBe('');
  });

  it('documents the routes in OpenAPI; evm-txs only on EVM', async () => {
    const paths = (app: Harness['app']) =>
      app
        .inject({ url: '/swagger/doc.json' })
        .then((r) => Object.keys((JSON.parse(r.body) as { paths: object }).paths));
    expect((await paths(h.app)).filter((p) => p.startsWith(STREAM)).sort()).toEqual([
      `${STREAM}/blocks`,
      `${STREAM}/evm-txs`,
      `${STREAM}/txs`,
    ]);
    const move = await h.appWith({ VM_TYPE: 'move' });
    expect((await paths(move)).filter((p) => p.startsWith(STREAM)).sort()).toEqual([
      `${STREAM}/blocks`,
      `${STREAM}/txs`,
    ]);
    expect((await move.inject({ url: `${STREAM}/evm-txs` })).statusCode).toBe(404);
  });
});
