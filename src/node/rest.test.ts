import { describe, expect, it } from 'vitest';
import { createRestClient, restCannotRenderTxs } from './rest.js';

/** A REST client whose node answers every request with `status` and `body`. */
function clientAnswering(status: number, body: string) {
  return createRestClient({
    request: async () => ({ status, text: body, endpoint: 'http://node' }),
    close: async () => {},
  });
}

async function failureOf(status: number, body: string): Promise<unknown> {
  return clientAnswering(status, body)
    .txsOfBlock(10, 1)
    .then(
      () => undefined,
      (err: unknown) => err,
    );
}

describe('restCannotRenderTxs (docs/node-data.md §1.3)', () => {
  // The answers real nodes give for a type their codec lacks (SDK 0.50, 0.47, 0.46 gateways).
  const refusals: [number, object][] = [
    [500, { code: 13, message: 'unable to resolve type URL /x.v1.MsgZ: tx parse error', details: [] }],
    [
      400,
      {
        code: 3,
        message: 'unable to resolve type URL /x.v1.MsgZ: tx parse error: invalid request',
        details: [],
      },
    ],
    [
      500,
      {
        code: 2,
        message: 'codespace sdk code 2: tx parse error: unable to resolve type URL /x.v1.MsgZ',
        details: [],
      },
    ],
  ];
  it.each(refusals)('HTTP %i %j is the node refusing the block', async (status, body) => {
    expect(restCannotRenderTxs(await failureOf(status, JSON.stringify(body)))).toBe(true);
  });

  // Node trouble and other answers stay what they were (retried or fatal by their own rules).
  const others: [number, string][] = [
    [
      500,
      JSON.stringify({ code: 2, message: 'height 10 is not available, lowest height is 50', details: [] }),
    ],
    [400, JSON.stringify({ code: 3, message: 'requested block height is bigger then the chain length' })],
    [502, 'Bad Gateway'],
  ];
  it.each(others)('HTTP %i %s is not', async (status, body) => {
    const err = await failureOf(status, body);
    expect(err).toBeInstanceOf(Error);
    expect(restCannotRenderTxs(err)).toBe(false);
  });

  it('a transport failure is not', () => {
    expect(restCannotRenderTxs(new Error('socket hang up'))).toBe(false);
  });
});
