// The answers to this player's own trade offers, picked out of the events as they arrive (no rendering
// here: the controller calls it for every events frame, and offers.js shows the notice it sets).
import { set, state } from './store.js';

const mine = new Map();   // trade id -> recipient seat, for the offers this player proposed in this room
let mineRoom = null;

/** Called with each events frame before the game moves on: remembers this player's offers and turns the
 * engine's answer to one of them into a notice. */
export function watchAnswers(events) {
  const me = state.you && !state.you.spectator ? state.you.seat : null;
  if (me === null || me === undefined) return;
  if (mineRoom !== state.roomId) {   // ids start again in each game: forget another room's offers
    mine.clear();
    mineRoom = state.roomId;
    if (state.tradeAnswer) set({ tradeAnswer: null });
  }
  for (const tr of (state.game ? state.game.trades : [])) if (tr.from === me) mine.set(tr.id, tr.to);
  for (const e of events) {
    let kind = null;
    if (e.type === 'trade_proposed' && e.from === me) mine.set(e.id, e.to);
    else if (e.type === 'trade_accepted' && e.from === me) kind = 'accepted';
    else if (e.type === 'trade_declined' && mine.has(e.trade)) kind = 'declined';
    else if (e.type === 'trade_lapsed' && mine.has(e.trade)) kind = e.reason === 'expired' ? 'expired' : 'lapsed';
    if (!kind) continue;
    const id = e.type === 'trade_accepted' ? e.id : e.trade;
    const to = e.type === 'trade_accepted' ? e.to : mine.get(id);
    mine.delete(id);
    set({ tradeAnswer: { id, kind, to } });
  }
}
