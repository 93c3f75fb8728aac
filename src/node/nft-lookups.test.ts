import { describe, expect, it } from 'vitest';
import { AppError } from '../shared/errors.js';
import { createNftLookups, decodeAbiString } from './nft-lookups.js';
import { createRestClient, type RestClient } from './rest.js';
import type { Transport, TransportRequest } from './transport.js';

const policy = { baseMs: 1, capMs: 2, maxAttempts: 3 };

function fakeRest(over: Partial<RestClient>): RestClient & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    getJson: async (p) => {
      calls.push(p);
      return undefined;
    },
    postJson: async (p) => {
      calls.push(p);
      return undefined;
    },
    txsOfBlock: async () => [],
    validatorMoniker: async () => undefined,
    ...over,
  };
}

/**
 * The real REST client over a node that answers `answer(req)` ({status, body}), or fails as the
 * transport does on network trouble (a thrown retryable error), counting requests.
 */
function restAnswering(answer: (req: TransportRequest) => { status: number; body: unknown }) {
  const seen: TransportRequest[] = [];
  const transport: Transport = {
    request: async (req) => {
      seen.push(req);
      const { status, body } = answer(req);
      return { status, text: typeof body === 'string' ? body : JSON.stringify(body), endpoint: 'fake' };
    },
    close: async () => undefined,
  };
  return { rest: createRestClient(transport), seen };
}

/** What wasmd's gateway answers when the contract fails a smart query (ErrQueryFailed, gRPC Unknown). */
const contractQueryFailed = (text: string) => ({
  status: 500,
  body: { code: 2, message: `${text}: query wasm contract failed: unknown request`, details: [] },
});
const abiString = (text: string): string => {
  const s = Buffer.from(text);
  const padded = s.toString('hex').padEnd(Math.ceil(s.length / 32) * 64 || 64, '0');
  return '0x' + 32n.toString(16).padStart(64, '0') + BigInt(s.length).toString(16).padStart(64, '0') + padded;
};
const WASM_CREATOR = { contract_info: { creator: 'init1maker' } };
const isSmart = (req: TransportRequest) => req.path.includes('/smart/');

describe('NFT look-ups', () => {
  it('a look-up that keeps failing on node trouble fails retryably (the block stream waits), naming the height and the object', async () => {
    let attempts = 0;
    const rest = fakeRest({
      getJson: async () => {
        attempts++;
        throw new AppError('node_rest_error', 'rest: HTTP 503', { retryable: true });
      },
    });
    const lookups = createNftLookups({ rest, policy });
    const err = await lookups.moveNft('0xabc', 42).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('nft_lookup_failed');
    expect((err as AppError).message).toMatch(
      /^height 42: NFT look-up of 0x1::nft::Nft of 0xabc failed after 3 attempts/,
    );
    expect((err as AppError).message).toMatch(
      /the block stream waits for the node and tries this height again$/,
    );
    expect((err as AppError).retryable).toBe(true);
    expect(attempts).toBe(3);
  });

  it('recovers when the node answers again within the attempts', async () => {
    let attempts = 0;
    const rest = fakeRest({
      getJson: async () => {
        if (++attempts < 3) throw new AppError('node_rest_error', 'HTTP 429', { retryable: true });
        return {
          resource: {
            move_resource: JSON.stringify({
              data: { collection: { inner: '0x5' }, token_id: '7', uri: 'u' },
            }),
          },
        };
      },
    });
    await expect(createNftLookups({ rest, policy }).moveNft('0xabc', 1)).resolves.toEqual({
      collection: '0x5',
      tokenId: '7',
      uri: 'u',
    });
  });

  it('caches immutable answers (collection names) and shares one request between concurrent callers', async () => {
    const rest = fakeRest({
      postJson: async (p) => {
        rest.calls.push(p);
        const s = Buffer.from('Sim');
        return {
          response:
            '0x' +
            32n.toString(16).padStart(64, '0') +
            3n.toString(16).padStart(64, '0') +
            s.toString('hex').padEnd(64, '0'),
          error: '',
        };
      },
    });
    const lookups = createNftLookups({ rest, policy });
    const names = await Promise.all([lookups.evmName('0x1', 5), lookups.evmName('0x1', 6)]);
    expect(names).toEqual(['Sim', 'Sim']);
    expect(await lookups.evmName('0x1', 9)).toBe('Sim');
    expect(rest.calls).toHaveLength(1);
  });

  it('a reverting name() is an unreadable name "" (ERC721 without metadata is still a collection), not retried; a reverting tokenURI gives ""', async () => {
    const { rest, seen } = restAnswering(() => ({
      status: 200,
      body: { response: '0x', used_gas: '21000', logs: [], error: 'Reverted: execution reverted, ret: 0x' },
    }));
    const lookups = createNftLookups({ rest, policy });
    expect(await lookups.evmName('0x2', 1)).toBe('');
    expect(await lookups.evmTokenUri('0x2', '5', 1)).toBe('');
    expect(seen).toHaveLength(2);
  });

  it('a revert answered as an HTTP error (not in the body) is a revert too, not node trouble', async () => {
    const { rest, seen } = restAnswering(() => ({
      status: 500,
      body: { code: 2, message: 'Reverted: execution reverted', details: [] },
    }));
    expect(await createNftLookups({ rest, policy }).evmName('0x3', 1)).toBe('');
    expect(seen).toHaveLength(1);
  });

  it('a name() or tokenURI() answer that is no ABI string is unreadable (""), never a crash', async () => {
    const answers = [
      '0x' + 'ff'.repeat(64), // offset word far past the end
      '0x' + 32n.toString(16).padStart(64, '0') + 'ff'.repeat(32), // length past the end
      '0x' + '00'.repeat(31) + '20', // offset, no length word
      '0xabc', // odd hex
    ];
    let i = 0;
    const { rest } = restAnswering(() => ({
      status: 200,
      body: { response: answers[i++ % answers.length], error: '' },
    }));
    const lookups = createNftLookups({ rest, policy });
    expect(await lookups.evmName('0x4', 1)).toBe('');
    expect(await lookups.evmName('0x5', 1)).toBe('');
    expect(await lookups.evmTokenUri('0x4', '1', 1)).toBe('');
    expect(await lookups.evmTokenUri('0x4', '2', 1)).toBe('');
  });

  it('a minievm call that fails at the node (5xx, 429, timeouts) is retried, then stops naming height and object', async () => {
    const rest = fakeRest({
      postJson: async () => {
        throw new AppError('node_rate_limited', 'rest fake: HTTP 429', { retryable: true });
      },
    });
    const err = (await createNftLookups({ rest, policy })
      .evmName('0x6', 77)
      .catch((e: unknown) => e)) as AppError;
    expect(err.code).toBe('nft_lookup_failed');
    expect(err.message).toMatch(/^height 77: NFT look-up of name\(\) of 0x6 failed after 3 attempts/);
  });

  it("a cached look-up shared by two blocks fails naming each caller's height (where ingest stops), with one request", async () => {
    let requests = 0;
    const rest = fakeRest({
      postJson: async () => {
        requests++;
        throw new AppError('node_http_error', 'rest fake: HTTP 503', { retryable: true });
      },
    });
    const lookups = createNftLookups({ rest, policy: { ...policy, maxAttempts: 1 } });
    const errors = (await Promise.all(
      [35, 33].map((h) => lookups.evmName('0x7', h).catch((e: unknown) => e)),
    )) as AppError[];
    expect(errors.map((e) => e.message.slice(0, 10))).toEqual(['height 35:', 'height 33:']);
    expect(requests).toBe(1);
  });

  it('a contract that does not speak the cw721 query is not a collection (no retry, no crash)', async () => {
    const { rest, seen } = restAnswering((req) =>
      isSmart(req)
        ? contractQueryFailed(
            'Error parsing into type cw20_base::msg::QueryMsg: unknown variant `contract_info`, expected one of `balance`, `token_info`, `minter`, `allowance`, `all_allowances`, `all_accounts`, `marketing_info`, `download_logo`',
          )
        : { status: 200, body: WASM_CREATOR },
    );
    expect(await createNftLookups({ rest, policy }).wasmCollection('init1x', 3)).toBeUndefined();
    expect(seen.filter(isSmart)).toHaveLength(1);
  });

  it('any contract-side query error is "not a collection", whatever the type path (my_lp_token::QueryMsg, StdError)', async () => {
    const texts: Record<string, string> = {
      init1lp:
        'Error parsing into type my_lp_token::QueryMsg: unknown variant `contract_info`, expected one of `pool`',
      init1std: 'Generic error: contract is paused',
    };
    const { rest, seen } = restAnswering((req) => {
      const contract = /contract\/([a-z0-9]+)/.exec(req.path)![1]!;
      return isSmart(req) ? contractQueryFailed(texts[contract]!) : { status: 200, body: WASM_CREATOR };
    });
    const lookups = createNftLookups({ rest, policy });
    expect(await lookups.wasmCollection('init1lp', 3)).toBeUndefined();
    expect(await lookups.wasmCollection('init1std', 3)).toBeUndefined();
    expect(seen.filter(isSmart)).toHaveLength(2);
  });

  it('an ABCI-style answer (codespace wasm, code 9) is a contract error; another codespace is node trouble', async () => {
    const { rest } = restAnswering((req) =>
      req.path.includes('init1abci')
        ? { status: 500, body: { code: 9, codespace: 'wasm', log: 'contract says no' } }
        : { status: 500, body: { code: 1, codespace: 'sdk', log: 'internal' } },
    );
    const lookups = createNftLookups({ rest, policy });
    expect(await lookups.wasmCollection('init1abci', 3)).toBeUndefined();
    const err = (await lookups.wasmCollection('init1sdk', 3).catch((e: unknown) => e)) as AppError;
    expect(err.code).toBe('nft_lookup_failed');
  });

  it('node trouble on the wasm smart query (a 500 that is no contract error, a 400 for a future height) is retried, then stops', async () => {
    let calls = 0;
    const { rest } = restAnswering(() => {
      calls++;
      return calls % 2 === 1
        ? {
            status: 500,
            body: { code: 2, message: 'height 3 is not available, lowest height is 9', details: [] },
          }
        : {
            status: 400,
            body: { code: 3, message: 'requested block height is bigger then the chain length', details: [] },
          };
    });
    const err = (await createNftLookups({ rest, policy })
      .wasmCollection('init1busy', 3)
      .catch((e: unknown) => e)) as AppError;
    expect(err.code).toBe('nft_lookup_failed');
    expect(err.message).toMatch(
      /^height 3: NFT look-up of contract_info of init1busy failed after 3 attempts/,
    );
    expect(calls).toBe(3);
  });

  it('a contract error on nft_info gives uri "" at once (token burnt later in the block, or no such query)', async () => {
    const { rest, seen } = restAnswering(() => contractQueryFailed('Generic error: token not minted'));
    expect(await createNftLookups({ rest, policy }).wasmTokenUri('init1c', '7', 4)).toBe('');
    expect(seen).toHaveLength(1);
  });

  it('a cw721 whose name cannot be read is still a collection, named "", with the creator the node gives', async () => {
    const answers: Record<string, unknown> = {
      '/cosmwasm/wasm/v1/contract/init1y': { contract_info: { creator: 'init1maker' } },
      '/cosmwasm/wasm/v1/contract/init1z': { contract_info: { creator: 'init1other' } },
    };
    const rest = fakeRest({
      getJson: async (p) => {
        if (p.startsWith('/cosmwasm/wasm/v1/contract/init1z/smart/')) return { data: { symbol: 'Z' } };
        return answers[p]; // init1y's smart query: 404 (undefined)
      },
    });
    const lookups = createNftLookups({ rest, policy });
    expect(await lookups.wasmCollection('init1y', 3)).toEqual({ name: '', creator: 'init1maker' });
    expect(await lookups.wasmCollection('init1z', 3)).toEqual({ name: '', creator: 'init1other' });
  });

  it('decodes ABI strings; a malformed answer is undefined, never a RangeError', () => {
    expect(decodeAbiString('0x')).toBe('');
    expect(decodeAbiString(abiString('Sim Collection'))).toBe('Sim Collection');
    expect(decodeAbiString('0x' + 'ff'.repeat(64))).toBeUndefined();
    expect(decodeAbiString('0x' + 32n.toString(16).padStart(64, '0') + 'ff'.repeat(32))).toBeUndefined();
    expect(decodeAbiString('0xzz')).toBeUndefined();
  });
});
