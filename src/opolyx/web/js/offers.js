// Trade offers that cannot be missed (issue 43): an incoming offer gets its own panel above the action bar,
// with what each side is worth (the engine's trade value: cash at face value, a company at its price, or
// price minus its redemption cost when mortgaged — engine/worth.py, mirrored by names.companyValue), the
// fairness figure and the time left; and whoever proposed an offer sees the answer (accepted, declined,
// expired) in a notice that stays until it is dismissed.
import { sendAction } from './controller.js';
import { html } from './html.js';
import { t } from './i18n.js';
import { money, playerName, squareName } from './names.js';
import { set, state } from './store.js';
import { fairness } from './trade.js';
import { Countdown } from './widgets.js';

/** The fairness rule's percent for this game: a house rule's value, else the mode's, else the common one. */
export function fairnessPercent() {
  const change = state.room && (state.room.house_changes || []).find((c) => c.key === 'trade_fairness_percent');
  if (change && typeof change.value === 'number') return change.value;
  const modes = state.modes;
  const mode = state.game && modes && modes.modes && modes.modes[state.game.mode];
  return (mode && mode.trade_fairness_percent) || (modes && modes.common && modes.common.trade_fairness_percent) || 50;
}

function sideText(side) {
  const parts = [];
  if (side.cash) parts.push(money(side.cash));
  for (const i of side.squares) parts.push(squareName(i));
  return parts.length ? parts.join(', ') : t('trade.nothing');
}

/** The offers waiting for this player's answer, each as a panel with values, fairness and its clock. */
export function OfferPanel() {
  const game = state.game;
  if (!game || !state.you || state.you.spectator) return null;
  const me = state.you.seat;
  const open = game.trades.filter((tr) => tr.to === me && state.legal.some((a) => a.type === 'accept_trade' && a.trade === tr.id));
  if (!open.length) return null;
  const percent = fairnessPercent();
  return html`${open.map((tr) => {
    // Seen from the recipient: "you get" is the proposer's give side.
    const f = fairness(tr.give, tr.take, percent, false);
    const deadline = state.deadlines.find((d) => d.id === `t:${tr.id}`);
    const head = `offer-head-${tr.id}`;
    return html`<section class="offer-panel" data-testid="offer-panel" data-trade=${tr.id} aria-labelledby=${head}>
      <h2 id=${head}>${t('trade.incoming', { from: playerName(tr.from) })}</h2>
      <div class="offer-values">
        <div data-testid="offer-get"><b>${t('feel.offer_you_get', { value: money(f.a) })}</b><br />${sideText(tr.give)}</div>
        <div data-testid="offer-give"><b>${t('feel.offer_you_give', { value: money(f.b) })}</b><br />${sideText(tr.take)}</div>
      </div>
      <div class="offer-fair" data-testid="offer-fair">${t('feel.offer_fairness', { ratio: f.ratio, percent })}</div>
      <div class="offer-time">${t('feel.offer_time')} <${Countdown} deadline=${deadline} /></div>
      <div class="buttons">
        <button class="primary" data-action="accept_trade" onClick=${() => sendAction({ type: 'accept_trade', trade: tr.id })}>${t('action.accept_trade')}</button>
        <button data-action="decline_trade" onClick=${() => sendAction({ type: 'decline_trade', trade: tr.id })}>${t('action.decline_trade')}</button>
      </div>
    </section>`;
  })}`;
}

/** The answer to this player's last offer, until dismissed (a live region reads it out). */
export function AnswerNotice() {
  const a = state.tradeAnswer;
  return html`<div role="status" class="answer-slot">${a && html`<div class=${`answer-notice ${a.kind}`} data-testid="trade-answer" data-kind=${a.kind}>
    <span class="grow">${t(`feel.answer_${a.kind}`, { player: playerName(a.to) })}</span>
    <button class="small" data-action="dismiss-answer" onClick=${() => set({ tradeAnswer: null })}>${t('feel.ok')}</button>
  </div>`}</div>`;
}
