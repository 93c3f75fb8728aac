import { bankSendMessageEvent, coinTransferEvents } from './bank-events.js';
import type { SimEvent } from '../../chain/events.js';
import type { SimAccount } from '../../chain/keys.js';
import { coinsOf, gasOf, recipientOf, type ModelContext, type Party } from './context.js';
import { coinsText } from '../../chain/tx-build.js';
import { msgSend, MSG_SEND } from '../../chain/msgs.js';
import type { PlannedTx } from '../../chain/plan.js';
import { pick, Stream } from '../../chain/prng.js';
import type { SimSignMode } from '../../chain/tx-build.js';

/** Bank MsgSend as Wasm and EVM rollups emit it (no Move FA events). */
export function plainSendEvents(from: SimAccount, to: Party, coins: ReturnType<typeof coinsOf>): SimEvent[] {
  return [bankSendMessageEvent(from.bech32), ...coinTransferEvents(from.bech32, to.bech32, coinsText(coins))];
}

export type BankKind = 'send' | 'send-multi-coin' | 'send-multi-msg' | 'send-failed';

/** The bank share of the mix (r in [0, 65)); the rest is VM-specific. */
export function bankKindOf(r: number): BankKind | undefined {
  if (r < 5) return 'send-failed';
  if (r < 45) return 'send';
  if (r < 55) return 'send-multi-coin';
  if (r < 65) return 'send-multi-msg';
  return undefined;
}

export function planBankSend(
  ctx: ModelContext,
  g: number,
  kind: BankKind,
  base: { signer: SimAccount; sequence: number; signMode: SimSignMode },
  sendEvents: (from: SimAccount, to: Party, coins: ReturnType<typeof coinsOf>) => SimEvent[],
): PlannedTx {
  const msgCount = kind === 'send-multi-msg' ? 2 + pick(ctx.seed, Stream.msgs, g, 3) : 1;
  const to = recipientOf(ctx, g, base.signer, 0);
  const msgs = [];
  const msgEvents = [];
  for (let i = 0; i < msgCount; i++) {
    const coins = coinsOf(ctx, g, i, kind === 'send-multi-coin');
    msgs.push(msgSend(base.signer.bech32, to.bech32, coins));
    msgEvents.push(sendEvents(base.signer, { ...to, fresh: to.fresh && i === 0 }, coins));
  }
  const planned: PlannedTx = {
    ...base,
    memo: '',
    ...gasOf(ctx, g, 120_000),
    msgs,
    msgEvents,
    msgResponseTypes: msgs.map(() => MSG_SEND + 'Response'),
  };
  if (kind === 'send-failed') {
    const wanted = coinsOf(ctx, g, 0, false)[0]!;
    const spendable = Math.floor(Number(wanted.amount) / 3);
    planned.failure = {
      code: 5,
      codespace: 'sdk',
      log:
        `failed to execute message; message index: 0: ${spendable}${wanted.denom} is smaller than ` +
        `${wanted.amount}${wanted.denom}: insufficient funds`,
    };
    planned.gasUsed = Math.floor(planned.gasUsed / 2);
  }
  return planned;
}
