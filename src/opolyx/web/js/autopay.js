// "Pay at once when I have the cash": when the setting is on and the server lists the engine's `pay`
// action for this player's pay step, send it, once per debt. The engine decides when paying is possible;
// the client only presses the button the player asked it to press.
import { html } from './html.js';
import { t } from './i18n.js';
import { setPref } from './prefs.js';
import { set, state } from './store.js';

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

// The one-time offer of this setting (issue 43): the first time a player pays a debt by hand, a prompt
// beside the action bar asks whether to pay at once from now on. Asked once per browser, either answer.
const ASKED = 'opolyx.autopayAsked';

function asked() {
  try { return localStorage.getItem(ASKED) === '1'; } catch { return true; }
}

/** Called with each events frame: the player's first payment by hand opens the prompt. */
export function offerAutopay(events) {
  const me = state.you && !state.you.spectator ? state.you.seat : null;
  if (me === null || me === undefined || state.prefs.autopay || state.autopayPrompt || asked()) return;
  if (events.some((e) => e.type === 'debt_paid' && e.seat === me && !e.auto)) set({ autopayPrompt: true });
}

function answer(on) {
  try { localStorage.setItem(ASKED, '1'); } catch { /* private mode: asked again next time, no harm */ }
  if (on) setPref('autopay', true);
  set({ autopayPrompt: false });
}

export function AutopayPrompt() {
  if (!state.autopayPrompt) return null;
  return html`<section class="autopay-prompt" data-testid="autopay-prompt" aria-labelledby="autopay-prompt-text">
    <span id="autopay-prompt-text" class="grow">${t('feel.autopay_prompt')}</span>
    <button class="primary small" data-action="autopay-yes" onClick=${() => answer(true)}>${t('feel.autopay_yes')}</button>
    <button class="small" data-action="autopay-no" onClick=${() => answer(false)}>${t('feel.autopay_no')}</button>
  </section>`;
}
