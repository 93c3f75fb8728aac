import { createHash } from 'node:crypto';
import { accountBytesFromString, normaliseAccount } from '../../../src/shared/address.js';
import type { Ev } from './events.js';

/**
 * A deliberately small re-reading of docs/ingest.md §7 (NFT collection per VM, nft-pair), used
 * to check that the simulator's ground truth follows from the events it emits.
 */
export interface MiniNftState {
  collections: Map<string, { name: string; creator: string; originName: string }>;
  tokens: Map<string, { collectionAddr: string; tokenId: string; owner: string; uri: string }>;
  /** EVM: signer of the first tx whose events mention an address (the collection creator rule). */
  firstSeen: Map<string, string>;
}

export interface BlockEvents {
  height: number;
  txs: Array<{ events: Ev[]; signer: string }>;
}

export interface Lookups {
  /** Move: 0x1::nft::Nft resource {token_id, uri} of an object at a height. */
  moveNft?(nft: string, height: number): Promise<{ tokenId: string; uri: string }>;
  /** Wasm: contract_info name + creator. */
  wasmCollection?(contract: string, height: number): Promise<{ name: string; creator: string }>;
  /** EVM: name() and tokenURI(id) through REST /minievm/evm/v1/call. */
  evmName?(contract: string, height: number): Promise<string>;
  evmTokenUri?(contract: string, id: string, height: number): Promise<string>;
}

const attrs = (e: Ev): Record<string, string> =>
  Object.fromEntries((e.attributes ?? []).map((a) => [a.key, a.value ?? '']));
const hex32 = (h: string): string => '0x' + h.slice(2).padStart(64, '0').toLowerCase();
const ZERO = '0x' + '0'.repeat(64);

export async function applyBlock(
  vm: 'move' | 'wasm' | 'evm',
  state: MiniNftState,
  block: BlockEvents,
  look: Lookups,
): Promise<void> {
  const owner = (text: string): string => normaliseAccount(text, 'init');
  const pairs: Array<[string, string]> = [];
  for (const tx of block.txs) {
    for (const e of tx.events) {
      const a = attrs(e);
      if (vm === 'evm') {
        for (const at of e.attributes ?? []) {
          const addr =
            at.key === 'log'
              ? (JSON.parse(at.value!) as { address: string }).address
              : at.key === 'contract'
                ? at.value!
                : '';
          if (addr !== '' && !state.firstSeen.has(addr.toLowerCase()))
            state.firstSeen.set(addr.toLowerCase(), tx.signer);
        }
      }
      if (e.type === 'recv_packet' && a.packet_src_port === 'nft-transfer') {
        const data = JSON.parse(a.packet_data!) as { classId: string; classData: string };
        const l1 = (JSON.parse(Buffer.from(data.classData, 'base64').toString('utf8')) as { name: string })
          .name;
        const path = `${a.packet_dst_port}/${a.packet_dst_channel}/${data.classId}`;
        const l2 =
          vm === 'wasm' ? path : 'ibc/' + createHash('sha256').update(path).digest('hex').toUpperCase();
        pairs.push([l2, l1]);
      }
      if (vm === 'move' && e.type === 'move') {
        const tag = a.type_tag!;
        const d = JSON.parse(a.data!) as Record<string, string>;
        if (tag === '0x1::collection::CreateCollectionEvent') {
          state.collections.set(hex32(d.collection!), {
            name: d.name!,
            creator: owner(d.creator!),
            originName: '',
          });
        } else if (tag === '0x1::collection::MintEvent') {
          const coll = state.collections.get(hex32(d.collection!))!;
          const res = await look.moveNft!(d.nft!, block.height);
          state.tokens.set(hex32(d.nft!), {
            collectionAddr: hex32(d.collection!),
            tokenId: res.tokenId,
            owner: coll.creator,
            uri: res.uri,
          });
        } else if (tag === '0x1::object::TransferEvent') {
          const t = state.tokens.get(hex32(d.object!));
          if (t) t.owner = owner(d.to!);
        } else if (tag === '0x1::nft::MutationEvent' && d.mutated_field_name === 'uri') {
          const t = state.tokens.get(hex32(d.nft!));
          if (t) t.uri = d.new_value!;
        } else if (tag === '0x1::collection::BurnEvent') {
          state.tokens.delete(hex32(d.nft!));
        }
      }
      if (vm === 'wasm' && e.type === 'wasm' && a._contract_address) {
        const coll = '0x' + Buffer.from(accountBytesFromString(a._contract_address, 'init')).toString('hex');
        const key = `${coll}/${a.token_id}`;
        if (a.minter && (a.owner || a.creator) && !state.collections.has(coll)) {
          const info = await look.wasmCollection!(a._contract_address, block.height);
          state.collections.set(coll, { name: info.name, creator: info.creator, originName: '' });
        }
        if (a.action === 'mint')
          state.tokens.set(key, {
            collectionAddr: coll,
            tokenId: a.token_id!,
            owner: owner(a.owner!),
            uri: a.token_uri ?? '',
          });
        if (a.action === 'transfer_nft' || a.action === 'send_nft')
          state.tokens.get(key)!.owner = owner(a.recipient!);
        if (a.action === 'burn') state.tokens.delete(key);
      }
      if (vm === 'evm' && e.type === 'evm') {
        for (const at of e.attributes ?? []) {
          if (at.key !== 'log') continue;
          const log = JSON.parse(at.value!) as { address: string; topics?: string[]; data: string };
          const t = log.topics ?? [];
          if (
            t.length !== 4 ||
            t[0] !== '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef' ||
            log.data !== '0x'
          )
            continue;
          const coll = log.address.toLowerCase();
          const id = BigInt(t[3]!).toString();
          const key = `${coll}/${id}`;
          if (t[1] === ZERO) {
            if (!state.collections.has(coll)) {
              const creator = state.firstSeen.get(coll)!;
              state.collections.set(coll, {
                name: await look.evmName!(coll, block.height),
                creator,
                originName: '',
              });
            }
            state.tokens.set(key, {
              collectionAddr: coll,
              tokenId: id,
              owner: owner(t[2]!),
              uri: await look.evmTokenUri!(coll, id, block.height),
            });
          } else if (t[2] === ZERO) state.tokens.delete(key);
          else state.tokens.get(key)!.owner = owner(t[2]!);
        }
      }
    }
  }
  for (const [l2, l1] of pairs)
    for (const c of state.collections.values()) if (c.name === l2) c.originName = l1;
}
