// Telling a player they must act: the tab title while a decision waits for them, and for each new one a
// toast, a sound (when on) and a browser notification (when the tab is hidden and they allowed it).
import { t } from './i18n.js';
import { money, playerName, squareName } from './names.js';
import { play } from './sounds.js';
import { set, state } from './store.js';
import { screenTitle } from './a11y.js';

const seen = new Set();
const BASE_TITLE = 'opolyx';

/** What the waiting decision asks of this player, in words, or null. */
export function alertFor(game, p) {
  if (p.decision === 'trade') {
    const offer = game.trades.find((x) => x.id === p.trade);
    return t('alert.trade_offer', { player: playerName(offer ? offer.from : null) });
  }
  if (p.decision === 'bid' && game.auction) return t('alert.your_bid', { square: squareName(game.auction.square) });
  if (p.decision === 'pay' && game.debt) return t('alert.you_owe', { amount: money(game.debt.amount) });
  return t('alert.your_turn');
}

/** The decisions waiting for this player now, each with a key that is new for each new decision. */
function mine(game) {
  const me = state.you && !state.you.spectator ? state.you.seat : null;
  if (me === null || me === undefined || !game || game.over) return [];
  return (game.pending || []).filter((p) => p.seat === me).map((p) => ({
    key: `${p.decision}:${(p.clock && p.clock.id) || ''}:${p.trade ?? ''}:${game.round}:${game.turn}`,
    pending: p,
    text: alertFor(game, p),
    trade: p.decision === 'trade',
  }));
}

function notify(text) {
  if (!state.prefs.notify || !document.hidden || typeof Notification === 'undefined') return;
  if (Notification.permission !== 'granted') return;
  try {
    const n = new Notification(BASE_TITLE, { body: text, tag: 'opolyx-turn', icon: '/icon.svg' });
    n.onclick = () => { window.focus(); n.close(); };
  } catch { /* some browsers only notify from a service worker: the title and toast still tell */ }
}

/** Called after every change of the game: update the title, and alert once per new decision. */
export function checkAlerts() {
  const waiting = mine(state.game);
  const main = waiting.find((w) => !w.trade) || waiting[0];
  const title = main ? `● ${main.text} · ${BASE_TITLE}` : screenTitle();
  if (document.title !== title) document.title = title;
  // A toast whose decision is gone (taken, timed out, game over) goes with it.
  if (state.alert && !waiting.some((w) => w.key === state.alert.id)) set({ alert: null });
  // A debt that auto-pay settles at once needs no alarm.
  const autopaid = (w) => w.pending.decision === 'pay' && state.prefs.autopay && state.legal.some((a) => a.type === 'pay');
  const fresh = waiting.filter((w) => !seen.has(w.key) && !autopaid(w));
  for (const w of waiting) seen.add(w.key);
  if (!fresh.length || state.stale) return;
  const first = fresh.find((w) => !w.trade) || fresh[0];
  set({ alert: { id: first.key, pending: first.pending } });
  setTimeout(() => { if (state.alert && state.alert.id === first.key) set({ alert: null }); }, 5000);
  play(first.trade ? 'alert' : 'turn');
  notify(first.text);
}

/** The toast's words, in the language shown now. */
export function alertText(alert) {
  return state.game ? alertFor(state.game, alert.pending) : '';
}

/** Leaving a game: the title goes back to normal. */
export function clearAlerts() {
  document.title = screenTitle();
  set({ alert: null });
}

/** Ask the browser for permission to notify (from a click, as browsers require). */
export async function askNotify() {
  if (typeof Notification === 'undefined') return false;
  if (Notification.permission === 'granted') return true;
  if (Notification.permission === 'denied') return false;
  return (await Notification.requestPermission()) === 'granted';
}
