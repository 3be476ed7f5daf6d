// Player panels: cash, net worth, companies, gods, jail, connection; and the square detail card.
import { verifyGame } from './api.js';
import { keptCommitment } from './fair.js';
import { sendAction } from './controller.js';
import { html } from './html.js';
import { t } from './i18n.js';
import { GROUP_COLORS, boardSquare, inkOn, displayName, money, playerName, seatColor, squareName, squareSubname } from './names.js';
import { setUi, state } from './store.js';
import { Modal } from './widgets.js';
import { floatsOf } from './feel.js';
import { actionLabel } from './actions.js';
import { tokenLabels } from './board.js';
import { SquareMarks } from './board_marks.js';
import { PersonMenu, ReliabilityBadge, useReliability } from './social.js';

/** Cash flying in (+) or out (−) of a seat's money for a moment after each change. */
export function Floats({ seat }) {
  return floatsOf(seat).map((f) => html`<span key=${f.id} class=${`float ${f.delta > 0 ? 'gain' : 'loss'}`} aria-hidden="true">
    ${f.delta > 0 ? '+' : '−'}${money(Math.abs(f.delta))}</span>`);
}

/** Every seat's cash in one compact line, always on screen on a phone (the panels sit behind a tab there). */
export function MoneyStrip() {
  const game = state.game;
  if (!game) return null;
  const me = state.you ? state.you.seat : null;
  const order = game.order || game.players.map((p) => p.seat);
  const labels = tokenLabels(game.players);
  return html`<div class="money-strip" data-testid="money-strip" aria-label=${t('game.cash_strip')}>${order.map((seat) => {
    const p = game.players[seat];
    return html`<button class=${`money-chip ${game.turn === seat && !game.over ? 'turn' : ''} ${p.out ? 'out' : ''} ${seat === me ? 'me' : ''}`}
        data-seat=${seat} style=${`--seat:${seatColor(seat)}`} title=${displayName(p.name, p.bot)} onClick=${() => setUi({ tab: 'players' })}>
      <i class="token-mark" style=${`background:${seatColor(seat)}`}>${labels[seat]}</i>
      <b data-cash>${money(p.cash)}</b><${Floats} seat=${seat} /></button>`;
  })}</div>`;
}

// A person's seat played by their AI agent (a personal API key): the room says so, the game does not.
function isAgent(seat) {
  const p = state.room && state.room.players.find((x) => x.seat === seat);
  return Boolean(p && p.agent);
}

function connected(seat) {
  const room = state.room;
  if (!room) return true;
  const p = room.players.find((x) => x.seat === seat);
  return !p || p.connected;
}

function Companies({ seat }) {
  const game = state.game;
  const owned = game.squares.filter((s) => s.owner === seat);
  if (!owned.length) return html`<div class="muted small">${t('player.no_companies')}</div>`;
  return html`<div class="companies">${owned.map((s) => {
    const sq = boardSquare(s.index);
    const color = sq && sq.group ? GROUP_COLORS[sq.group] : '#8a8f98';
    return html`<span class=${`company ${s.mortgaged ? 'mortgaged' : ''}`} title=${squareName(s.index)}
      style=${`border-color:${color}`} onClick=${() => setUi({ square: s.index })}>
      <i style=${`background:${color}`}></i>${squareName(s.index)}${s.level ? ` ·${s.level}` : ''}${s.mortgaged ? ' (M)' : ''}</span>`;
  })}</div>`;
}

export function PlayerPanels() {
  const game = state.game;
  if (!game) return null;
  const me = state.you ? state.you.seat : null;
  const order = game.order || game.players.map((p) => p.seat);
  const reliability = useReliability();
  return html`<div class="players" data-testid="players">${order.map((seat) => {
    const p = game.players[seat];
    const turn = game.turn === seat && !game.over;
    return html`<div class=${`player ${turn ? 'turn' : ''} ${p.out ? 'out' : ''} ${seat === me ? 'me' : ''}`} data-seat=${seat}
        style=${`--seat:${seatColor(seat)}`}>
      <div class="player-head">
        <i class="dot big" style=${`background:${seatColor(seat)}`}></i>
        <b class="pname">${displayName(p.name, p.bot)}</b>
        ${seat === me && html`<span class="badge">${t('player.you')}</span>`}
        ${p.bot && html`<span class="badge bot">${t('player.bot')}</span>`}
        ${p.vip && html`<span class="badge vip" data-testid="vip" title=${t('feel.vip_title')}>VIP</span>`}
        ${!p.bot && isAgent(seat) && html`<span class="badge bot" data-agent>${t('player.agent')}</span>`}
        ${game.rules.teams && p.team !== null && html`<span class="badge">${t('player.team', { team: p.team + 1 })}</span>`}
        ${!p.bot && !connected(seat) && html`<span class="badge warn">${t('player.offline')}</span>`}
        <${ReliabilityBadge} info=${reliability[seat]} />
        ${!p.bot && seat !== me && state.roomId && html`<${PersonMenu} target=${{ room: state.roomId, seat }} name=${p.name} />`}
      </div>
      <div class="player-money">
        <span class="cash" title=${t('player.cash')}><small>${t('player.cash')}</small> <b data-cash>${money(p.cash)}</b><${Floats} seat=${seat} /></span>
        <span title=${t('player.net_worth')}><small>${t('player.net_worth')}</small> ${money(p.net_worth)}</span>
      </div>
      <div class="player-flags">
        ${p.in_jail && html`<span class="badge warn">${t('player.in_jail')}</span>`}
        ${p.god && html`<span class=${`badge god-${p.god}`}>${t(`god.${p.god}`)} · ${t('player.until_round', { round: p.god_until_round })}</span>`}
        ${p.out && html`<span class="badge">${t(`player.out.${p.out_reason}`)}</span>`}
        ${p.missed_turns > 0 && !p.out && html`<span class="badge warn">${t('player.missed', { n: p.missed_turns })}</span>`}
      </div>
      <${Companies} seat=${seat} />
    </div>`;
  })}</div>`;
}

export function SquareDetail() {
  const i = state.ui.square;
  const game = state.game;
  const sq = boardSquare(i);
  if (!game || !sq || state.legal.some((a) => a.type === 'teleport')) return null;
  const view = game.squares[i];
  const close = () => setUi({ square: null });
  const acts = state.legal.filter((a) => a.square === i && ['build', 'sell', 'mortgage', 'redeem', 'pay_murabaha'].includes(a.type));
  const sub = squareSubname(i);
  return html`<${Modal} title=${squareName(i)} onClose=${close} cls="square-modal">
    ${sub && html`<div class="muted">${sub}</div>`}
    ${sq.group && html`<div class="group-band" style=${`background:${GROUP_COLORS[sq.group]};color:${inkOn(GROUP_COLORS[sq.group])}`}>${t(`group.${sq.group}`)}</div>`}
    <div class="kv">
      ${sq.price ? html`<span>${t('square.price')}</span><b>${money(sq.price)}</b>` : null}
      ${sq.tax ? html`<span>${t('square.tax')}</span><b>${money(sq.tax)}</b>` : null}
      ${sq.level_cost ? html`<span>${t('square.level_cost')}</span><b>${money(sq.level_cost)}</b>` : null}
      ${sq.price ? html`<span>${t('square.mortgage_value')}</span><b>${money(Math.floor(sq.price / 2))}</b>` : null}
      ${view.owner !== null && html`<span>${t('square.owner')}</span><span>${playerName(view.owner)}</span>`}
      ${view.level ? html`<span>${t('square.level')}</span><b>${view.level}</b>` : null}
      ${view.mortgaged && html`<span>${t('game.mortgaged')}</span><b>${view.mortgage_rounds_left !== undefined ? t('square.rounds_left', { n: view.mortgage_rounds_left }) : '✓'}</b>`}
      ${view.murabaha && html`<span>${t('square.murabaha')}</span><b>${t('square.murabaha_due', { amount: money(view.murabaha.amount), round: view.murabaha.due_round })}</b>`}
    </div>
    <${SquareMarks} i=${i} sq=${sq} view=${view} />
    ${sq.rents && html`<table class="rents"><tbody>${sq.rents.map((r, k) => html`<tr class=${view.level === k ? 'now' : ''}>
      <td>${k === 0 ? t('square.rent_base') : t('square.rent_level', { n: k })}</td><td>${money(r)}</td></tr>`)}</tbody></table>`}
    ${sq.kind === 'dealership' && state.board && html`<div class="muted small">${t('square.dealership_rents', { rents: state.board.dealership_rents.map(money).join(' / ') })}</div>`}
    ${sq.kind === 'utility' && state.board && html`<div class="muted small">${t('square.utility_rents', { a: state.board.utility_multipliers[0], b: state.board.utility_multipliers[1] })}</div>`}
    ${view.rent && !view.mortgaged ? html`<div class="rent-now" data-testid="rent-now">${t('square.rent_now', { amount: money(view.rent) })}</div>` : null}
    ${acts.length > 0 && html`<fieldset class="buttons acting" disabled=${state.stale}>${acts.map((a) => html`<button data-action=${a.type}
      onClick=${() => sendAction(a)}>${actionLabel(a)}</button>`)}</fieldset>`}
  </${Modal}>`;
}

/** The verify button: what this page saw (the commitment kept when the game started, every event since)
 *  checked against the seed the server revealed at the end. A page that never saw the start falls back to
 *  the commitment in the server's snapshot, and says so. */
export function FairDice() {
  const fair = state.ui.fair;
  const check = async () => {
    setUi({ fair: { busy: true } });
    const log = state.log;
    const kept = keptCommitment(state.roomId);
    const commitment = kept ? kept.commitment : (state.fairness && state.fairness.commitment) || null;
    const late = !kept || !kept.atStart;
    // A log that lost its oldest entries may hold only part of its first step: leave that step out.
    const first = log.length && log[0].seq !== 0 ? log[0].seq : -1;
    const seen = log.filter((h) => h.seq !== first).slice(-5000).map((h) => ({ seq: h.seq, event: h.ev }));
    try {
      const r = await verifyGame(state.roomId, commitment, seen);
      setUi({ fair: { ...r, late } });
    } catch (err) {
      setUi({ fair: { ok: false, late, mismatches: [err.message] } });
    }
  };
  return html`<div class="fair-dice" data-testid="fair-dice">
    ${!fair && html`<button data-action="verify_dice" onClick=${check}>${t('over.verify')}</button>`}
    ${fair && fair.busy && html`<p class="muted">${t('fair.checking')}</p>`}
    ${fair && !fair.busy && html`<p class=${fair.ok ? 'fair-ok' : 'fair-bad'} data-testid="fair-result">${fair.ok
      ? t('fair.ok', { dice: fair.dice, cards: fair.cards })
      : t('fair.bad', { why: (fair.mismatches || []).join('; ') })}</p>`}
    ${fair && !fair.busy && fair.late && html`<p class="muted small" data-testid="fair-late">${t('fair.late')}</p>`}
  </div>`;
}

export { sendAction };
