import { describe, expect, it } from 'vitest';
import { accountFromAny, StargateClient, type Account } from '@cosmjs/stargate';
import { Comet38Client } from '@cosmjs/tendermint-rpc';
import type { Any } from 'cosmjs-types/google/protobuf/any';
import { BaseAccount } from 'cosmjs-types/cosmos/auth/v1beta1/auth';
import { toBech32 } from '../../src/shared/address.js';
import type { TxTruth, VmType } from '../../src/sim/types.js';
import { useSimulators } from './helpers/sims.js';

const startSim = useSimulators();
const HEAD = 40;

/** cosmjs knows secp256k1 keys only; Initia's ethsecp256k1 accounts are read without the key. */
function parseAccount(any: Any): Account {
  if (any.typeUrl === '/cosmos.auth.v1beta1.BaseAccount') {
    const a = BaseAccount.decode(any.value);
    if (a.pubKey?.typeUrl !== '/cosmos.crypto.secp256k1.PubKey') {
      return {
        address: a.address,
        pubkey: null,
        accountNumber: a.accountNumber,
        sequence: Number(a.sequence),
      };
    }
  }
  return accountFromAny(any);
}

async function connect(vm: VmType) {
  const { sim, urls } = await startSim({
    vm,
    head: HEAD,
    seed: 11,
    fastSignatures: true,
    txsPerBlock: '1-4',
  });
  const comet = await Comet38Client.connect(urls.rpc);
  const client = StargateClient.create(comet, { accountParser: parseAccount });
  const truthTxs: TxTruth[] = [];
  for (let h = 1; h <= HEAD; h++) truthTxs.push(...sim.truth.block(h).txs);
  const rest = async (path: string) => (await fetch(`${urls.rest}${path}`)).json() as Promise<unknown>;
  return { sim, client, comet, truthTxs, rest };
}

describe.each(['move', 'wasm', 'evm'] as const)('a cosmjs StargateClient on %s', (vm) => {
  it('reads chain id, height, blocks, txs and searches as the truth says', async () => {
    const { sim, client, truthTxs } = await connect(vm);
    expect(await client.getChainId()).toBe(sim.options.chainId);
    expect(await client.getHeight()).toBe(HEAD);
    for (const h of [1, 17, HEAD]) {
      const block = await client.getBlock(h);
      const truth = sim.truth.block(h);
      expect(block.id).toBe(truth.hash);
      expect(block.header.height).toBe(h);
      expect(block.header.chainId).toBe(sim.options.chainId);
      expect(String(block.header.time).slice(0, 19)).toBe(truth.time.slice(0, 19));
      expect(block.txs).toHaveLength(truth.txs.length);
    }
    for (const truth of [truthTxs[0]!, truthTxs[Math.floor(truthTxs.length / 2)]!, truthTxs.at(-1)!]) {
      const tx = await client.getTx(truth.hash);
      expect(tx).not.toBeNull();
      expect([tx!.height, tx!.txIndex, tx!.hash, tx!.code]).toEqual([
        truth.height,
        truth.index,
        truth.hash,
        truth.code,
      ]);
      expect([String(tx!.gasUsed), String(tx!.gasWanted)]).toEqual([truth.gasUsed, truth.gasWanted]);
    }
    expect(await client.getTx('00'.repeat(32))).toBeNull();

    const atHeight = await client.searchTx([{ key: 'tx.height', value: 17 }]);
    expect(atHeight.map((t) => t.hash)).toEqual(sim.truth.block(17).txs.map((t) => t.hash));
    const signer = truthTxs[0]!.signer;
    const bySender = await client.searchTx(`message.sender='${signer}'`);
    const expected = truthTxs.filter((t) => t.signer === signer).map((t) => t.hash);
    expect(bySender.map((t) => t.hash)).toEqual(expected);
    const action = `/${truthTxs[0]!.msgTypes[0]!}`;
    const byAction = await client.searchTx(`message.action='${action}' AND tx.height<=20`);
    expect(byAction.length).toBeGreaterThan(0);
    for (const t of byAction) {
      const truth = truthTxs.find((x) => x.hash === t.hash)!;
      expect(truth.height).toBeLessThanOrEqual(20);
      expect(truth.msgTypes).toContain(action.slice(1));
    }
    client.disconnect();
  });

  it('reads accounts and balances as the simulator state answers', async () => {
    const { sim, client, truthTxs, rest } = await connect(vm);
    const signers = [...new Set(truthTxs.map((t) => t.signer))].slice(0, 4);
    for (const address of signers) {
      const account = await client.getAccount(address);
      expect(account?.address).toBe(address);
      // The sequence is the number of txs the account signed up to the head (the truth).
      expect(account?.sequence).toBe(truthTxs.filter((t) => t.signer === address).length);
      const restAccount = (await rest(`/cosmos/auth/v1beta1/accounts/${address}`)) as {
        account: { account_number: string };
      };
      expect(String(account?.accountNumber)).toBe(restAccount.account.account_number);
      for (const denom of sim.truth.denoms()) {
        const coin = await client.getBalance(address, denom);
        const all = (await rest(`/cosmos/bank/v1beta1/balances/${address}`)) as {
          balances: Array<{ denom: string; amount: string }>;
        };
        expect(coin).toEqual({ denom, amount: all.balances.find((b) => b.denom === denom)?.amount ?? '0' });
      }
      const all = await client.getAllBalances(address);
      expect(all.length).toBeGreaterThan(0);
    }
    if (vm === 'evm') {
      // EVM balances are exact sums: the truth's holder list gives the same amounts.
      const denom = sim.truth.denoms()[0]!;
      for (const holder of sim.truth.holders(denom, HEAD).slice(0, 5)) {
        expect((await client.getBalance(holder.account, denom)).amount).toBe(holder.amount);
      }
    }
    // An address the chain never saw: no account (cosmjs maps NotFound to null).
    expect(await client.getAccount(toBech32(Buffer.alloc(20, 7), 'init'))).toBeNull();
    client.disconnect();
  });
});
