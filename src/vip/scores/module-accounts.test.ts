import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeModuleAccounts } from './module-accounts.js';

/** A REST node whose module_accounts answer each test sets. */
let answer: { status: number; body: string } = { status: 200, body: '{}' };
let server: http.Server;
let url: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const found = req.url === '/base/cosmos/auth/v1beta1/module_accounts';
    res.writeHead(found ? answer.status : 404, { 'content-type': 'application/json' });
    res.end(found ? answer.body : '{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://user:secret@127.0.0.1:${(server.address() as AddressInfo).port}/base`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('nodeModuleAccounts (through the node transport)', () => {
  it('reads either address field, under the base path of the URL', async () => {
    answer = {
      status: 200,
      body: JSON.stringify({
        accounts: [{ base_account: { address: 'init1aaa' } }, { address: 'init1bbb' }, { name: 'x' }],
      }),
    };
    expect(await nodeModuleAccounts(url)).toEqual(['init1aaa', 'init1bbb']);
  });

  it('a 5xx without a JSON body is node_unreachable, naming the URL without its password', async () => {
    answer = { status: 502, body: 'bad gateway' };
    const err = (await nodeModuleAccounts(url).catch((e: unknown) => e)) as Error & { code: string };
    expect(err.code).toBe('node_unreachable');
    expect(err.message).toContain('HTTP 502');
    expect(err.message).not.toContain('secret');
  });

  it('an answer without accounts is node_error with the status', async () => {
    answer = { status: 200, body: 'not json' };
    await expect(nodeModuleAccounts(url)).rejects.toMatchObject({
      code: 'node_error',
      message: expect.stringContaining('HTTP 200') as string,
    });
  });
});
