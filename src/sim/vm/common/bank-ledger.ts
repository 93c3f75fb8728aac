import { accountBytesFromString } from '../../../shared/address.js';
import type { SimEvent } from '../../chain/events.js';
import type { SimAccount } from '../../chain/keys.js';
import { createLedger, type Ledger, type Movement } from '../../chain/ledger.js';
import type { PlannedTx, VmModel } from '../../chain/plan.js';

/**
 * Bank balances of Move and Wasm rollups as exact sums of what the chain's events say moved,
 * read from the simulator's own event objects (not from rendered JSON):
 * - Wasm: bank `transfer` events of the messages; a fee ends at the rewards account when its
 *   block ends (the fee collector passes it on in EndBlock), so it moves there directly.
 * - Move: fungible-asset Withdraw/Deposit events with their owner events, the fee's included; the
 *   EndBlock bank events of the simulator move nothing here.
 * Tokens are bank denoms; addresses are 0x + 40 lower-case hex.
 */
export function createBankLedger(deps: {
  vm: 'move' | 'wasm';
  model: VmModel;
  accounts: SimAccount[];
  denoms: string[];
  prefix: string;
  rewardsHex: string;
  /** Move: the bank denom of a fungible-asset metadata address. */
  denomOfMetadata?: (metadataHex: string) => string | undefined;
}): Ledger {
  const hexOf = (address: string) =>
    '0x' + Buffer.from(accountBytesFromString(address, deps.prefix)).toString('hex');
  const eventsOf = (tx: PlannedTx): SimEvent[] =>
    tx.failure ? [] : [...tx.msgEvents.flat(), ...(tx.postEvents ?? [])];
  return createLedger({
    genesisAddresses: deps.accounts.map((a) => a.hex),
    genesisTokens: deps.denoms,
    movements(g) {
      const tx = deps.model.plan(g);
      if (deps.vm === 'wasm') {
        const fees = tx.fee.map((c) => ({
          token: c.denom,
          from: tx.signer.hex,
          to: deps.rewardsHex,
          amount: BigInt(c.amount),
        }));
        return [...fees, ...eventsOf(tx).flatMap((e) => bankTransfer(e, hexOf))];
      }
      return faMovements([...deps.model.feeEvents(tx), ...eventsOf(tx)], hexOf, deps.denomOfMetadata!);
    },
  });
}

const attr = (e: SimEvent, key: string) => e.attributes.find((a) => a.key === key)?.value;

function bankTransfer(e: SimEvent, hexOf: (address: string) => string): Movement[] {
  if (e.type !== 'transfer') return [];
  const [from, to, amount] = [attr(e, 'sender'), attr(e, 'recipient'), attr(e, 'amount')];
  if (!from || !to || !amount) return [];
  return amount.split(',').map((coin) => {
    const m = /^(\d+)(.+)$/.exec(coin)!;
    return { token: m[2]!, from: hexOf(from), to: hexOf(to), amount: BigInt(m[1]!) };
  });
}

/** Withdraw/Deposit events, each followed by its owner event, as the Move VM emits them. */
function faMovements(
  events: SimEvent[],
  hexOf: (address: string) => string,
  denomOf: (metadataHex: string) => string | undefined,
): Movement[] {
  const out: Movement[] = [];
  events.forEach((e, i) => {
    const tag = attr(e, 'type_tag');
    const side =
      tag === '0x1::fungible_asset::WithdrawEvent'
        ? 'from'
        : tag === '0x1::fungible_asset::DepositEvent'
          ? 'to'
          : undefined;
    const owner = events[i + 1];
    if (e.type !== 'move' || !side || !owner) return;
    const data = JSON.parse(attr(e, 'data')!) as { metadata_addr: string; amount: string };
    const ownerData = JSON.parse(attr(owner, 'data')!) as { owner: string };
    const token = denomOf(data.metadata_addr);
    if (token === undefined) return;
    out.push({ token, [side]: hexOf(ownerData.owner), amount: BigInt(data.amount) });
  });
  return out;
}
