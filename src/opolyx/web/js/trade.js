// The trade builder (cash and companies both ways, the fairness rule shown live) and the open offers.
import { useState } from 'preact/hooks';
import { sendAction } from './controller.js';
import { html } from './html.js';
import { t } from './i18n.js';
import { companyValue, money, playerName, seatColor, squareName } from './names.js';
import { setUi, state } from './store.js';
import { Countdown, Modal } from './widgets.js';

function sideValue(side) {
  return (side.cash || 0) + side.squares.reduce((sum, i) => sum + companyValue(i), 0);
}

function allies(a, b) {
  const g = state.game;
  if (!g || !g.rules.teams) return false;
  const pa = g.players[a];
  const pb = g.players[b];
  return pa.team !== null && pa.team === pb.team;
}

/** The fairness rule (docs/rules.md §8) as the engine states it in the propose_trade template. */
export function fairness(give, take, percent, exempt) {
  const a = sideValue(give);
  const b = sideValue(take);
  const small = Math.min(a, b);
  const large = Math.max(a, b);
  const ratio = large ? Math.round((small * 100) / large) : 100;
  return { a, b, ratio, fair: exempt || small * 100 >= large * percent };
}

function SidePicker({ title, limits, side, onChange, testid }) {
  const toggle = (i) => {
    const squares = side.squares.includes(i) ? side.squares.filter((x) => x !== i) : [...side.squares, i].sort((x, y) => x - y);
    onChange({ ...side, squares });
  };
  return html`<fieldset class="trade-side" data-side=${testid}>
    <legend>${title}</legend>
    <label class="cash">${t('trade.cash')}
      <input type="number" min="0" max=${limits.cash_max} step="100" value=${side.cash} data-field="cash"
        onInput=${(e) => onChange({ ...side, cash: Math.max(0, Math.min(limits.cash_max, Math.floor(Number(e.target.value) || 0))) })} />
      <span class="muted small">${t('trade.max', { amount: money(limits.cash_max) })}</span></label>
    ${limits.squares.length === 0 && html`<div class="muted small">${t('trade.no_companies')}</div>`}
    <ul class="trade-companies">${limits.squares.map((i) => html`<li>
      <label><input type="checkbox" data-square=${i} checked=${side.squares.includes(i)} onChange=${() => toggle(i)} />
        ${squareName(i)}${state.game.squares[i].mortgaged ? ` (${t('game.mortgaged')})` : ''}
        <span class="muted small"> ${money(companyValue(i))}</span></label></li>`)}</ul>
  </fieldset>`;
}

export function TradeBuilder() {
  const template = state.legal.find((a) => a.type === 'propose_trade');
  const me = state.you.seat;
  const [to, setTo] = useState(state.ui.trade.to ?? (template ? template.to[0] : null));
  const [give, setGive] = useState({ cash: 0, squares: [] });
  const [take, setTake] = useState({ cash: 0, squares: [] });
  const close = () => setUi({ trade: null });
  if (!template) {
    return html`<${Modal} title=${t('trade.title')} onClose=${close}><p>${t('trade.not_now')}</p></${Modal}>`;
  }
  const partner = template.to.includes(to) ? to : template.to[0];
  const theirs = template.take[String(partner)];
  const exempt = allies(me, partner);
  const f = fairness(give, take, template.fairness_percent, exempt);
  const empty = !(give.cash || give.squares.length || take.cash || take.squares.length);
  const send = () => {
    sendAction({ type: 'propose_trade', to: partner, give, take });
    close();
  };
  const open = state.game.trades.filter((x) => x.from === me).length;
  return html`<${Modal} title=${t('trade.title')} onClose=${close} cls="trade-modal">
    <label class="partner">${t('trade.partner')}
      <select value=${partner} data-field="partner" onChange=${(e) => { setTo(Number(e.target.value)); setTake({ cash: 0, squares: [] }); }}>
        ${template.to.map((s) => html`<option value=${s}>${playerName(s)}</option>`)}
      </select></label>
    <div class="trade-sides">
      <${SidePicker} title=${t('trade.you_give')} limits=${template.give} side=${give} onChange=${setGive} testid="give" />
      <${SidePicker} title=${t('trade.you_get', { player: playerName(partner) })} limits=${theirs} side=${take} onChange=${setTake} testid="take" />
    </div>
    <div class=${`fairness ${empty ? 'empty' : f.fair ? 'ok' : 'bad'}`} data-fair=${f.fair && !empty}>
      <div>${t('trade.values', { give: money(f.a), take: money(f.b) })}</div>
      <div>${exempt ? t('trade.teammates') : t('trade.rule', { percent: template.fairness_percent, ratio: f.ratio })}</div>
      <b>${empty ? t('trade.empty') : f.fair ? t('trade.fair') : t('trade.unfair')}</b>
    </div>
    <div class="buttons">
      <button class="primary" data-action="send_trade" disabled=${!f.fair || empty} onClick=${send}>${t('trade.send')}</button>
      <span class="muted small">${t('trade.open_count', { n: open, max: state.game.rules.max_open_trades })}</span>
    </div>
  </${Modal}>`;
}

function sideText(side) {
  const parts = [];
  if (side.cash) parts.push(money(side.cash));
  for (const i of side.squares) parts.push(squareName(i));
  return parts.length ? parts.join(', ') : t('trade.nothing');
}

export function TradeList() {
  const game = state.game;
  if (!game) return null;
  const me = state.you ? state.you.seat : null;
  const legal = state.legal;
  const can = (type, id) => legal.find((a) => a.type === type && a.trade === id);
  if (!game.trades.length) return html`<div class="muted empty">${t('trade.none')}</div>`;
  return html`<ul class="trades">${game.trades.map((tr) => {
    const deadline = state.deadlines.find((d) => d.id === `t:${tr.id}`);
    const accept = can('accept_trade', tr.id);
    const decline = can('decline_trade', tr.id);
    const cancel = can('cancel_trade', tr.id);
    const kind = tr.to === me ? 'incoming' : tr.from === me ? 'outgoing' : 'other';
    return html`<li class=${`trade ${kind}`} data-trade=${tr.id}>
      <div class="trade-head"><i class="dot" style=${`background:${seatColor(tr.from)}`}></i>
        ${t(`trade.${kind}`, { from: playerName(tr.from), to: playerName(tr.to) })} <${Countdown} deadline=${deadline} /></div>
      <div class="trade-body">
        <div><span class="muted">${t('trade.gives', { player: playerName(tr.from) })}</span> ${sideText(tr.give)}</div>
        <div><span class="muted">${t('trade.gives', { player: playerName(tr.to) })}</span> ${sideText(tr.take)}</div>
      </div>
      <div class="buttons">
        ${accept && html`<button class="primary small" data-action="accept_trade" onClick=${() => sendAction({ type: 'accept_trade', trade: tr.id })}>${t('action.accept_trade')}</button>`}
        ${decline && html`<button class="small" data-action="decline_trade" onClick=${() => sendAction({ type: 'decline_trade', trade: tr.id })}>${t('action.decline_trade')}</button>`}
        ${cancel && html`<button class="small" data-action="cancel_trade" onClick=${() => sendAction({ type: 'cancel_trade', trade: tr.id })}>${t('action.cancel_trade')}</button>`}
      </div></li>`;
  })}</ul>`;
}
