import { event, type SimEvent } from '../../chain/events.js';
import { MSG_SEND } from '../../chain/msgs.js';

/** The `message` event the bank module opens a MsgSend with. */
export function bankSendMessageEvent(sender: string): SimEvent {
  return event('message', [
    ['action', MSG_SEND],
    ['sender', sender],
    ['module', 'bank'],
  ]);
}

/**
 * What x/bank emits for one coin movement (SendCoins): coin_spent, coin_received, transfer and
 * a trailing `message` naming the sender. `amount` is the coins as text ("10uinit,5uusdc").
 */
export function coinTransferEvents(sender: string, recipient: string, amount: string): SimEvent[] {
  return [
    event('coin_spent', [
      ['spender', sender],
      ['amount', amount],
    ]),
    event('coin_received', [
      ['receiver', recipient],
      ['amount', amount],
    ]),
    event('transfer', [
      ['recipient', recipient],
      ['sender', sender],
      ['amount', amount],
    ]),
    event('message', [['sender', sender]]),
  ];
}
