// "Pay at once when I have the cash": when the setting is on and the server lists the engine's `pay`
// action for this player's pay step, send it, once per debt. The engine decides when paying is possible;
// the client only presses the button the player asked it to press.
import { state } from './store.js';

let lastPaid = null;

/** Sends the pay action through `sendAction` (the controller's) when the player asked for it. */
export function checkAutopay(sendAction) {
  const game = state.game;
  if (!state.prefs.autopay || state.stale || !game || !game.debt || !state.you) return;
  if (game.debt.debtor !== state.you.seat) return;
  const pay = state.legal.find((a) => a.type === 'pay');
  if (!pay) return;
  const key = game.debt.id;
  if (lastPaid === key) return;
  lastPaid = key;
  sendAction(pay);
}
