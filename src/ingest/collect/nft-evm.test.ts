import { describe, expect, it } from 'vitest';
import { createNftLookups } from '../../node/nft-lookups.js';
import type { RestClient } from '../../node/rest.js';
import { AppError } from '../../shared/errors.js';
import type { NftChange } from '../../store/writers/nft-rows.js';
import { abciEvent, blockOf, capturingLogger } from '../../../test/helpers/nft-blocks.js';
import { collectEvmNfts } from './nft-evm.js';

const TRANSFER = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const ZERO = '0x' + '0'.repeat(64);
const word = (hex: string): string => '0x' + hex.replace(/^0x/, '').padStart(64, '0');
const ALICE = '0x' + 'a1'.repeat(20);
const BOB = '0x' + 'b0'.repeat(20);
const PLAIN = '0x' + '77'.repeat(20); // an ERC721 without the metadata extension: name() reverts
const NAMED = '0x' + '88'.repeat(20);
const NAME_SELECTOR = '0x06fdde03';

const transferLog = (contract: string, topics: string[]) =>
  abciEvent('evm', [
    ['log', JSON.stringify({ address: contract, topics: [TRANSFER, ...topics], data: '0x' })],
  ]);
const abiString = (text: string): string =>
  '0x' +
  word('20').slice(2) +
  word(Buffer.byteLength(text).toString(16)).slice(2) +
  Buffer.from(text).toString('hex').padEnd(64, '0');

/** minievm's `/minievm/evm/v1/call` as a REST client: `answer(contract, input)` gives the body. */
function minievm(
  answer: (contract: string, input: string) => { response: string; error: string },
): RestClient {
  const no = async (): Promise<never> => {
    throw new AppError('internal', 'unexpected REST call');
  };
  return {
    getJson: no,
    postJson: async (_path, body) => {
      const b = body as { contract_addr: string; input: string };
      return { ...answer(b.contract_addr, b.input), used_gas: '21000', logs: [] };
    },
    txsOfBlock: no,
    validatorMoniker: no,
  };
}
const reverted = { response: '0x', error: 'Reverted: execution reverted, ret: 0x' };
const hex = (b: Uint8Array): string => '0x' + Buffer.from(b).toString('hex');
const show = (c: NftChange): string =>
  `${c.kind} ${'tokenId' in c.ref ? c.ref.tokenId : ''}${c.kind === 'mint' || c.kind === 'transfer' ? ' ' + hex(c.owner) : ''}${c.kind === 'mint' ? ' ' + c.uri : ''} @${c.txIndex}`;

describe('EVM NFT collector', () => {
  it('an ERC721 whose name() reverts is still a collection, named "", with all its transfers (docs/ingest.md §7.2; as on Wasm)', async () => {
    const rest = minievm((contract, input) =>
      contract === PLAIN || input !== NAME_SELECTOR
        ? input === NAME_SELECTOR
          ? reverted
          : { response: abiString(`ipfs://${contract.slice(2, 4)}`), error: '' }
        : { response: abiString('Named'), error: '' },
    );
    const raw = blockOf(12, [
      [transferLog(PLAIN, [ZERO, word(ALICE), word('1')])],
      [transferLog(PLAIN, [word(ALICE), word(BOB), word('1')])],
      [transferLog(NAMED, [ZERO, word(BOB), word('2')])],
      [transferLog(PLAIN, [word(BOB), ZERO, word('1')])],
    ]);
    const rows = await collectEvmNfts(raw, { prefix: 'init', lookups: createNftLookups({ rest }) });
    expect(rows.collections.map((c) => [hex(c.addr), c.name]).sort()).toEqual([
      [PLAIN, ''],
      [NAMED, 'Named'],
    ]);
    expect(rows.changes.map(show)).toEqual([
      `mint 1 ${ALICE} ipfs://77 @0`,
      `transfer 1 ${BOB} @1`,
      `mint 2 ${BOB} ipfs://88 @2`,
      'burn 1 @3',
    ]);
  });

  it('a name() answer that is no ABI string is an unreadable name "", not an error', async () => {
    const rest = minievm(() => ({ response: '0x' + 'ff'.repeat(64), error: '' }));
    const raw = blockOf(13, [[transferLog(NAMED, [ZERO, word(BOB), word('3')])]]);
    const rows = await collectEvmNfts(raw, { prefix: 'init', lookups: createNftLookups({ rest }) });
    expect(rows.collections.map((c) => c.name)).toEqual(['']);
    expect(rows.changes.map(show)).toEqual([`mint 3 ${BOB}  @0`]);
  });

  it('a Transfer-shaped log whose topics are not 32-byte words is skipped with a warning, never a crash', async () => {
    const { logger, lines } = capturingLogger();
    const rest = minievm(() => ({ response: abiString('Named'), error: '' }));
    const raw = blockOf(14, [
      [transferLog(NAMED, [ZERO, word(BOB), 'not-a-number'])],
      [transferLog(NAMED, [ZERO, word(BOB), word('4')])],
    ]);
    const rows = await collectEvmNfts(raw, { prefix: 'init', lookups: createNftLookups({ rest }), logger });
    expect(rows.changes.map(show)).toEqual([`mint 4 ${BOB} Named @1`]);
    const skipped = lines.filter((l) => l.msg === 'NFT event skipped: unreadable chain data');
    expect(skipped).toHaveLength(1);
    expect(skipped[0]).toMatchObject({ height: 14, contract: NAMED });
    expect(skipped[0]!.tx).toMatch(/^[0-9A-F]{64}$/);
  });
});
