import { describe, expect, it } from 'vitest';
import { useSimulators } from './helpers/sims.js';

const start = useSimulators();
const HEAD = 40;

async function get<T>(url: string, height?: number): Promise<T> {
  const res = await fetch(
    url,
    height === undefined ? {} : { headers: { 'x-cosmos-block-height': String(height) } },
  );
  expect(res.status, url).toBe(200);
  return (await res.json()) as T;
}

/** Every balance of every account the node lists (auth and module accounts), summed per denom. */
async function summedBalances(rest: string, height: number): Promise<Map<string, bigint>> {
  const { accounts } = await get<{ accounts: Array<{ address: string }> }>(
    `${rest}/cosmos/auth/v1beta1/accounts?pagination.limit=10000`,
    height,
  );
  const modules = await get<{ accounts: Array<{ base_account: { address: string } }> }>(
    `${rest}/cosmos/auth/v1beta1/module_accounts`,
  );
  const sums = new Map<string, bigint>();
  for (const address of [
    ...accounts.map((a) => a.address),
    ...modules.accounts.map((m) => m.base_account.address),
  ]) {
    const { balances } = await get<{ balances: Array<{ denom: string; amount: string }> }>(
      `${rest}/cosmos/bank/v1beta1/balances/${address}`,
      height,
    );
    for (const b of balances) sums.set(b.denom, (sums.get(b.denom) ?? 0n) + BigInt(b.amount));
  }
  return sums;
}

describe('bank supply', () => {
  it.each(['move', 'wasm'] as const)(
    '%s: /cosmos/bank/v1beta1/supply at a height is the sum of every listed balance, paged by offset',
    async (vm) => {
      const { urls } = await start({ vm, head: HEAD, txsPerBlock: '3', seed: 9, fastSignatures: true });
      for (const height of [5, HEAD]) {
        const page = (offset: number) =>
          get<{ supply: Array<{ denom: string; amount: string }>; pagination: { total: string } }>(
            `${urls.rest}/cosmos/bank/v1beta1/supply?pagination.limit=1&pagination.offset=${offset}`,
            height,
          );
        const first = await page(0);
        const total = Number(first.pagination.total);
        const supply = [...first.supply];
        for (let offset = 1; offset < total; offset++) supply.push(...(await page(offset)).supply);
        expect(total).toBeGreaterThan(1);
        const sums = await summedBalances(urls.rest, height);
        expect(new Map(supply.map((c) => [c.denom, BigInt(c.amount)]))).toEqual(
          new Map([...sums].filter(([, amount]) => amount !== 0n)),
        );
      }
    },
  );

  it('evm: an ERC20 totalSupply() at a height is the sum of its holders then', async () => {
    const { sim, urls } = await start({
      vm: 'evm',
      head: HEAD,
      txsPerBlock: '3',
      seed: 9,
      fastSignatures: true,
    });
    const { address } = await get<{ address: string }>(
      `${urls.rest}/minievm/evm/v1/contracts/by_denom?denom=uusdc`,
    );
    for (const height of [5, HEAD]) {
      const res = await fetch(urls.jsonRpc!, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'eth_call',
          params: [{ to: address, data: '0x18160ddd' }, '0x' + height.toString(16)],
        }),
      });
      const { result } = (await res.json()) as { result: string };
      const held = sim.truth.holders('uusdc', height).reduce((sum, h) => sum + BigInt(h.amount), 0n);
      expect(held).toBeGreaterThan(0n);
      expect(BigInt(result)).toBe(held);
    }
  });
});
