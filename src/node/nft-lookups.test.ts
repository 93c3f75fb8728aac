import { describe, expect, it } from 'vitest';
import { AppError } from '../shared/errors.js';
import { createNftLookups, decodeAbiString } from './nft-lookups.js';
import type { RestClient } from './rest.js';

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

describe('NFT look-ups', () => {
  it('a look-up that keeps failing stops with an error naming the height and the object, after the attempts', async () => {
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
    expect((err as AppError).retryable).toBe(false);
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

  it('a reverting name() means "not an NFT with metadata"; a reverting tokenURI gives ""', async () => {
    const rest = fakeRest({
      postJson: async () => ({ response: '0x', error: 'Reverted: execution reverted' }),
    });
    const lookups = createNftLookups({ rest, policy });
    expect(await lookups.evmName('0x2', 1)).toBeUndefined();
    expect(await lookups.evmTokenUri('0x2', '5', 1)).toBe('');
  });

  it('a contract that does not speak the cw721 query is not a collection (no retry, no crash)', async () => {
    const rest = fakeRest({
      getJson: async () => {
        throw new AppError(
          'node_rest_error',
          'rest: HTTP 500 Error parsing into type cw20_base::msg::QueryMsg: unknown variant `contract_info`',
          { retryable: true },
        );
      },
    });
    expect(await createNftLookups({ rest, policy }).wasmCollection('init1x', 3)).toBeUndefined();
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

  it('decodes ABI strings', () => {
    expect(decodeAbiString('0x')).toBe('');
  });
});
