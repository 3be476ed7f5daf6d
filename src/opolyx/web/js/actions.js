// The action bar: exactly the legal actions the server sent for this seat, grouped into panels.
import { useEffect, useRef, useState } from 'preact/hooks';
import { askMoreTime, sendAction } from './controller.js';
import { announce } from './a11y.js';
import { html } from './html.js';
import { t } from './i18n.js';
import { boardSquare, money, playerName, seatColor, squareName } from './names.js';
import { setPref } from './prefs.js';
import { busTarget, busTargetName, previewHandlers } from './bus_preview.js';
import { setUi, state } from './store.js';
import { ConfirmButton, Countdown } from './widgets.js';

function byType(legal) {
  const out = {};
  for (const a of legal) (out[a.type] ||= []).push(a);
  return out;
}

const act = (a) => () => sendAction(stripTemplate(a));
function stripTemplate(a) {
  const { template, ...rest } = a;
  return rest;
}

function deadlineFor(kind, seat) {
  return state.deadlines.find((d) => d.kind === kind && (seat === undefined || d.seat === seat));
}

function Who({ seat }) {
  return html`<span class="who"><i class="dot" style=${`background:${seatColor(seat)}`}></i>${playerName(seat)}</span>`;
}

function OfferPanel({ game, by }) {
  const sq = state.board && state.board.squares[game.offer];
  const mine = by.buy || by.decline || by.buy_murabaha;
  return html`<section class="panel offer" data-panel="offer">
    <div class="panel-title">${t('offer.title', { square: squareName(game.offer), price: money(sq ? sq.price : 0) })}</div>
    ${!mine && html`<div class="muted">${t('offer.waiting', { player: playerName(game.turn) })}</div>`}
    ${mine && html`<div class="buttons">
      ${by.buy && html`<button class="primary" data-action="buy" onClick=${act(by.buy[0])}>${t('action.buy', { price: money(sq ? sq.price : 0) })}</button>`}
      ${by.buy_murabaha && html`<button data-action="buy_murabaha" onClick=${act(by.buy_murabaha[0])}>${t('action.buy_murabaha')}</button>`}
      ${by.decline && html`<button data-action="decline" onClick=${act(by.decline[0])}>${t('action.decline')}</button>`}
    </div>`}
    ${mine && !by.buy && html`<div class="muted small">${t('offer.short')}</div>`}
  </section>`;
}

function AuctionPanel({ game, by }) {
  const a = game.auction;
  const clock = deadlineFor('auction');
  return html`<section class="panel auction" data-panel="auction">
    <div class="panel-title">${t('auction.title', { square: squareName(a.square) })}</div>
    <div class="kv">
      <span>${t('auction.current')}</span><b>${a.bid === null ? t('auction.no_bid') : money(a.bid)}</b>
      ${a.leader !== null && html`<span>${t('auction.leader')}</span><${Who} seat=${a.leader} />`}
      <span>${t('auction.bidder')}</span><span><${Who} seat=${a.bidder} /> <${Countdown} deadline=${clock} /></span>
      <span>${t('auction.minimum')}</span><b>${money(a.minimum)}</b>
    </div>
    <div class="auction-seats">${a.order.map((s) => html`<span class=${`chip ${a.passed.includes(s) ? 'passed' : ''} ${s === a.bidder ? 'now' : ''}`}>
      <i class="dot" style=${`background:${seatColor(s)}`}></i>${playerName(s)}${a.passed.includes(s) ? ` · ${t('auction.passed')}` : ''}</span>`)}</div>
    ${(by.bid || by.pass) && html`<div class="buttons">
      ${by.bid && html`<button class="primary" data-action="bid" onClick=${act(by.bid[0])}>${t('action.bid', { amount: money(by.bid[0].amount) })}</button>`}
      ${by.pass && html`<button data-action="pass" onClick=${act(by.pass[0])}>${t('action.pass')}</button>`}
    </div>`}
  </section>`;
}

function CompanyActions({ by, kinds }) {
  const rows = {};
  for (const kind of kinds) for (const a of by[kind] || []) (rows[a.square] ||= []).push(a);
  const squares = Object.keys(rows).map(Number).sort((x, y) => x - y);
  if (!squares.length) return null;
  // Each button names its square for a screen reader ("Mortgage Harbor Optics"), since five rows say "Mortgage".
  return html`<ul class="company-actions">${squares.map((i) => html`<li>
    <button class="sq-label link" data-action="square-card" data-square=${i} onClick=${() => setUi({ square: i })}>${squareName(i)}</button>
    <span class="buttons">${rows[i].map((a) => html`<button class="small" data-action=${a.type} data-square=${i}
      aria-label=${t('a11y.on_square', { action: actionLabel(a), square: squareName(i) })}
      onClick=${act(a)}>${actionLabel(a)}</button>`)}</span></li>`)}</ul>`;
}

/** A management button's words; a build button says what it costs and the rent it leads to (board data). */
export function actionLabel(a) {
  if (a.type === 'build') {
    const sq = boardSquare(a.square);
    const view = state.game && state.game.squares[a.square];
    const rent = sq && sq.rents && view ? sq.rents[view.level + 1] : undefined;
    if (sq && sq.level_cost && rent !== undefined) return t('action.build_cost', { cost: money(sq.level_cost), rent: money(rent) });
  }
  return t(`action.${a.type}`);
}

/** P pays, one key for the step that comes back most often (not while typing in a field, and never when
 * the player switched single-key shortcuts off: WCAG 2.1.4). Enter presses only the focused control; the
 * Pay button takes the focus when the pay step opens, so Enter pays from there. */
function usePayKey(pay) {
  useEffect(() => {
    if (!pay || state.prefs.shortcuts === false) return undefined;
    const onKey = (e) => {
      const tag = (e.target && e.target.tagName) || '';
      if (e.repeat || e.altKey || e.ctrlKey || e.metaKey || ['INPUT', 'TEXTAREA', 'SELECT'].includes(tag)) return;
      if (e.target && e.target.isContentEditable) return;
      if (e.key === 'p' || e.key === 'P') { e.preventDefault(); sendAction(stripTemplate(pay)); }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [pay, state.prefs.shortcuts]);
}

/** The Pay button takes the focus when it appears, unless the player is busy elsewhere (typing, a dialog). */
function useFocusOnMount(ref) {
  useEffect(() => {
    const a = document.activeElement;
    const free = !a || a === document.body || a.closest('[data-focus-home=actions]') || a.matches('main h1, main h2');
    if (ref.current && free && !document.querySelector('[role=dialog]')) ref.current.focus();
  }, []);
}

export function AutopayToggle() {
  return html`<label class="check autopay"><input type="checkbox" name="autopay" checked=${state.prefs.autopay}
    onChange=${(e) => setPref('autopay', e.target.checked)} /> ${t('settings.autopay')}</label>`;
}

function PayPanel({ game, by, me }) {
  const d = game.debt;
  const clock = deadlineFor('pay', d.debtor);
  const mine = d.debtor === me;
  const cash = game.players[d.debtor].cash;
  const to = d.creditors.map((c) => `${playerName(c.seat)} ${money(c.amount)}`).join(', ');
  const creditor = d.creditors.length === 1 ? playerName(d.creditors[0].seat) : to;
  usePayKey(mine && by.pay ? by.pay[0] : null);
  const payRef = useRef(null);
  return html`<section class="panel pay" data-panel="pay">
    <div class="panel-title">${t(mine ? 'pay.you_owe' : 'pay.owes', { player: playerName(d.debtor), amount: money(d.amount) })}</div>
    <div class="kv">
      <span>${t('pay.reason')}</span><span>${t(`pay.reason.${d.reason}`)}${d.square !== null && d.square !== undefined ? ` · ${squareName(d.square)}` : ''}</span>
      <span>${t('pay.to')}</span><span>${to}</span>
      <span>${t('pay.cash')}</span><b class=${cash < d.amount ? 'neg' : ''}>${money(cash)}</b>
      <span>${t('pay.clock')}</span><${Countdown} deadline=${clock} />
    </div>
    ${mine && cash < d.amount && html`<div class="hint">${t('pay.short', { amount: money(d.amount - cash) })}</div>`}
    ${mine && html`<${CompanyActions} by=${by} kinds=${['sell', 'mortgage']} />`}
    ${mine && by.pay && html`<${PayButton} pay=${by.pay[0]} text=${t('action.pay_to', { amount: money(d.amount), to: creditor })} />`}
    ${mine && html`<${MoreTime} debt=${d} clock=${clock} />`}
    ${mine && html`<${AutopayToggle} />`}
    ${mine && html`<div class="buttons">
      ${by.propose_trade && html`<button data-action="trade" onClick=${() => setUi({ trade: { to: null } })}>${t('action.trade')}</button>`}
      ${by.declare_bankruptcy && html`<${ConfirmButton} cls="danger" action="bankruptcy" label=${t('action.declare_bankruptcy')}
        confirm=${t('pay.bankruptcy_confirm')} onClick=${act(by.declare_bankruptcy[0])} />`}
    </div>`}
  </section>`;
}

function PayButton({ pay, text }) {
  const ref = useRef(null);
  useFocusOnMount(ref);
  const keys = state.prefs.shortcuts !== false;
  return html`<button class="primary big pay-now" data-action="pay" ref=${ref} aria-keyshortcuts=${keys ? 'P' : null}
    onClick=${act(pay)}>${text}${keys && html`<kbd aria-hidden="true">${t('pay.key_hint')}</kbd>`}</button>`;
}

/** Asking for more time in the pay step (docs/accessibility.md): the one clock SPEC.md sets as a minimum
 * ("at least 75 s"), so the server may lengthen it once per debt for a player who asks. */
function MoreTime({ debt, clock }) {
  if (!clock || state.ui.moreTime === debt.id) return null;
  return html`<button class="small ghost" data-action="more_time" onClick=${() => { setUi({ moreTime: debt.id }); askMoreTime(); announce(t('a11y.more_time_given', { player: playerName(debt.debtor) })); }}>
    ${t('a11y.more_time')}</button>`;
}

function JackpotPanel({ by }) {
  const [picked, setPicked] = useState([]);
  const legalSets = new Set((by.jackpot_bet || []).map((a) => [...a.numbers].sort().join(',')));
  const key = [...picked].sort().join(',');
  const toggle = (n) => setPicked(picked.includes(n) ? picked.filter((x) => x !== n) : picked.length < 3 ? [...picked, n] : picked);
  const mult = ((state.modes && state.modes.common.jackpot_multipliers) || [6, 3, 2])[picked.length - 1];
  const stake = state.game.rules.jackpot_stake;
  return html`<section class="panel jackpot" data-panel="jackpot">
    <div class="panel-title">${t('jackpot.title', { stake: money(stake) })}</div>
    <div class="muted small">${t('jackpot.rule')}</div>
    ${by.jackpot_bet && html`<div class="numbers">${[1, 2, 3, 4, 5, 6].map((n) => html`<button
      class=${`num ${picked.includes(n) ? 'on' : ''}`} data-number=${n} onClick=${() => toggle(n)}>${n}</button>`)}</div>`}
    <div class="buttons">
      ${by.jackpot_bet && html`<button class="primary" data-action="jackpot_bet" disabled=${!legalSets.has(key)}
        onClick=${() => { sendAction({ type: 'jackpot_bet', numbers: [...picked].sort() }); setPicked([]); }}>
        ${picked.length ? t('jackpot.bet', { payout: money(stake * mult) }) : t('jackpot.pick')}</button>`}
      ${by.jackpot_decline && html`<button data-action="jackpot_decline" onClick=${act(by.jackpot_decline[0])}>${t('action.jackpot_decline')}</button>`}
    </div></section>`;
}

function BusPanel({ by, game }) {
  const [d1, d2] = game.dice;
  const steps = { sum: d1 + d2, first: d1, second: d2 };
  // On a double (1+1) the first and the second die go equally far: offer that move once.
  const shown = new Set();
  const choices = by.choose_bus.filter((a) => !shown.has(steps[a.use]) && shown.add(steps[a.use]));
  return html`<section class="panel bus" data-panel="bus">
    <div class="panel-title">${t('bus.title')}</div>
    <div class="buttons">${choices.map((a) => html`<button data-action="choose_bus" data-use=${a.use}
      data-lands=${busTarget(game, steps[a.use])} ...${previewHandlers(busTarget(game, steps[a.use]))}
      onClick=${act(a)}>${t(`bus.${a.use}`, { steps: steps[a.use] })} → ${busTargetName(game, steps[a.use])}</button>`)}</div></section>`;
}

function TeleportPanel({ by }) {
  const [target, setTarget] = useState(state.ui.square ?? '');
  const chosen = state.ui.square ?? target;
  return html`<section class="panel teleport" data-panel="teleport">
    <div class="panel-title">${t('teleport.title')}</div>
    <div class="muted small">${t('teleport.hint')}</div>
    <div class="buttons">
      <select value=${chosen} onChange=${(e) => { setTarget(Number(e.target.value)); setUi({ square: Number(e.target.value) }); }}>
        <option value="">${t('teleport.pick')}</option>
        ${by.teleport.map((a) => html`<option value=${a.square}>${a.square} · ${squareName(a.square)}</option>`)}
      </select>
      <button class="primary" data-action="teleport" disabled=${chosen === '' || chosen === undefined}
        onClick=${() => { sendAction({ type: 'teleport', square: Number(chosen) }); setUi({ square: null }); }}>${t('action.teleport')}</button>
    </div></section>`;
}

function JailPanel({ by, player }) {
  return html`<section class="panel jail" data-panel="jail">
    <div class="panel-title">${t('jail.title', { tries: player.jail_tries })}</div>
    <div class="buttons">
      ${by.pay_bail && html`<button data-action="pay_bail" onClick=${act(by.pay_bail[0])}>${t('action.pay_bail', { amount: money(state.game.rules.jail_bail) })}</button>`}
      ${by.jail_roll && html`<button class="primary" data-action="jail_roll" onClick=${act(by.jail_roll[0])}>${t('action.jail_roll')}</button>`}
    </div></section>`;
}

const MANAGE_KINDS = ['build', 'sell', 'mortgage', 'redeem', 'pay_murabaha'];

/** Opens the list of management actions under the buttons (so opening it never moves Roll). */
function ManageToggle({ by }) {
  const count = MANAGE_KINDS.reduce((n, k) => n + (by[k] ? by[k].length : 0), 0);
  if (!count) return null;
  const open = state.ui.manage;
  return html`<button class="ghost" data-action="manage" aria-expanded=${!!open} onClick=${() => setUi({ manage: !open })}>${t('action.manage')} (${count}) ${open ? '▴' : '▾'}</button>`;
}

export function ActionBar() {
  const game = state.game;
  if (!game) return null;
  const me = state.you ? state.you.seat : null;
  const by = byType(state.legal);
  const player = me !== null && me !== undefined ? game.players[me] : null;
  const actor = (game.pending || []).find((p) => p.decision !== 'trade');
  const panels = [];
  if (game.over) {
    return html`<section class="action-bar" data-testid="action-bar" data-focus-home="actions" aria-labelledby="actions-heading">
      <h2 id="actions-heading" class="sr-only">${t('a11y.actions')}</h2><div class="turn-line">${t('over.title')}
      <button class="primary" data-action="results" onClick=${() => setUi({ hideOver: false })}>${t('over.results')}</button></div></section>`;
  }
  if (game.phase === 'buy' && game.offer !== null) panels.push(html`<${OfferPanel} game=${game} by=${by} />`);
  if (game.auction) panels.push(html`<${AuctionPanel} game=${game} by=${by} />`);
  if (game.debt) panels.push(html`<${PayPanel} game=${game} by=${by} me=${me} />`);
  if (by.jackpot_bet || by.jackpot_decline) panels.push(html`<${JackpotPanel} by=${by} />`);
  if (by.choose_bus) panels.push(html`<${BusPanel} by=${by} game=${game} />`);
  if (by.teleport) panels.push(html`<${TeleportPanel} by=${by} />`);
  if (by.pay_bail || by.jail_roll) panels.push(html`<${JailPanel} by=${by} player=${player} />`);
  const myTurnClock = actor && actor.seat === me ? deadlineFor('turn', me) : null;
  return html`<section class=${`action-bar ${state.stale ? 'stale' : ''}`} data-testid="action-bar" data-stale=${state.stale}
      data-focus-home="actions" aria-labelledby="actions-heading">
    <h2 id="actions-heading" class="sr-only">${t('a11y.actions')}</h2>
    ${state.stale && html`<div class="paused" role="status" data-testid="paused">${t('conn.paused')}</div>`}
    <fieldset class="acting" disabled=${state.stale}>
    <div class="turn-line">
      ${actor && html`<span><i class="dot" style=${`background:${seatColor(actor.seat)}`}></i>
        ${actor.seat === me ? t(`you.${actor.decision}`) : t(`decision.${actor.decision}`, { player: playerName(actor.seat) })}</span>`}
      ${myTurnClock && html`<${Countdown} deadline=${myTurnClock} />`}
      ${state.you && state.you.spectator && html`<span class="badge">${t('game.spectating')}</span>`}
      ${player && player.out && html`<span class="badge">${t('game.you_are_out')}</span>`}
    </div>
    ${panels}
    <div class="buttons main-buttons">
      ${by.roll && html`<button class="primary big" data-action="roll" onClick=${act(by.roll[0])}>${t('action.roll')}</button>`}
      ${by.propose_trade && !game.debt && html`<button data-action="trade" onClick=${() => setUi({ trade: { to: null } })}>${t('action.trade')}</button>`}
      ${!game.debt && html`<${ManageToggle} by=${by} />`}
      ${by.resign && html`<${ConfirmButton} cls="ghost small resign" label=${t('action.resign')} confirm=${t('action.resign_confirm')}
        action="resign" onClick=${act(by.resign[0])} />`}
    </div>
    ${!game.debt && state.ui.manage && html`<div class="manage-list"><${CompanyActions} by=${by} kinds=${MANAGE_KINDS} /></div>`}
    </fieldset>
  </section>`;
}
