// The end screen, built from small parts so more can be slotted in (an XP block, say): the winner's
// moment, the placements, every seat's net worth round by round, the game's key numbers, and a rematch.
import { useEffect, useState } from 'preact/hooks';
import * as api from './api.js';
import { go, showError, toast } from './controller.js';
import { html } from './html.js';
import { t } from './i18n.js';
import { money, playerName, seatColor } from './names.js';
import { setUi, state } from './store.js';
import { Modal } from './widgets.js';
import { GameOverXp } from './xp_gameover.js';
import { FairDice } from './players.js';
import { social } from './social.js';

/** A person (not a bot) sat in this seat: they can be added as a friend from the end screen. */
function isPerson(seat) {
  const p = state.room && state.room.players.find((x) => x.seat === seat);
  return Boolean(p && p.kind === 'human');
}

/** The finished game's figures from the server (it replays the game); retried while the room finishes. */
function useSummary(roomId) {
  const [summary, setSummary] = useState(null);
  useEffect(() => {
    let alive = true;
    let tries = 0;
    const load = () => api.getJson(`/api/games/${encodeURIComponent(roomId)}/summary`)
      .then((s) => { if (alive) setSummary(s); })
      .catch((err) => { if (alive && err.status === 409 && ++tries < 10) setTimeout(load, 500); });
    load();
    return () => { alive = false; };
  }, [roomId]);
  return summary;
}

const CONFETTI = Array.from({ length: 18 }, (_, k) => k);

/** A win looks like a win: a trophy, the winner's colour, confetti (motion-reduced users get none). */
export function WinnerMoment({ result, me }) {
  const winner = result.placements[0];
  const mine = winner && winner.seat === me;
  return html`<div class=${`winner-moment ${mine ? 'mine' : ''}`} data-testid="winner" style=${`--seat:${seatColor(winner.seat)}`}>
    ${mine && html`<div class="confetti" aria-hidden="true">${CONFETTI.map((k) => html`<i class=${`c${k % 6}`}
      style=${`left:${(k * 53) % 100}%; animation-delay:${(k % 6) * 0.12}s`}></i>`)}</div>`}
    <svg class="trophy" viewBox="0 0 64 64" width="64" height="64" aria-hidden="true">
      <path class="cup" d="M18 6h28v14c0 9-6 16-14 16s-14-7-14-16z" />
      <path class="handles" d="M18 11H8c0 10 5 15 11 15M46 11h10c0 10-5 15-11 15" />
      <rect class="cup" x="28" y="35" width="8" height="11" /><rect class="base" x="18" y="46" width="28" height="8" rx="2" />
      <path class="star" d="M32 11l2.6 5.3 5.8.8-4.2 4.1 1 5.8-5.2-2.7-5.2 2.7 1-5.8-4.2-4.1 5.8-.8z" /></svg>
    <div class="winner-line">${mine ? t('over.you_win') : t('over.winner', { player: playerName(winner.seat) })}</div>
    ${!mine && me !== null && me !== undefined && html`<div class="muted">${t('over.your_place', {
      place: (result.placements.find((p) => p.seat === me) || {}).place })}</div>`}
  </div>`;
}

export function Placements({ result, me }) {
  return html`<ol class="placements" data-testid="placements">${result.placements.map((p) => html`<li class=${p.seat === me ? 'me' : ''}>
    <span class="place">${p.place}</span><i class="dot big" style=${`background:${seatColor(p.seat)}`}></i>
    <b>${playerName(p.seat)}</b>${p.out ? html` <span class="badge">${t('over.out')}</span>` : ''}
    ${p.seat !== me && isPerson(p.seat) && html`<button class="small" data-action="add-friend-seat"
      onClick=${() => social.friend({ room: state.roomId, seat: p.seat }).then(() => toast(t('social.friend_asked', { name: playerName(p.seat) })), showError)}>${t('social.add_friend')}</button>`}
    <span class="worth">${t('over.net_worth')} ${money(p.net_worth)}</span></li>`)}</ol>`;
}

/** Each seat's own marker shape (circle, square, triangle, diamond, cross, star): the lines are told
 * apart without colour, and the legend shows the same shapes. */
const MARKERS = [
  'M0,-5a5,5 0 1,0 0.01,0z', 'M-4.5,-4.5h9v9h-9z', 'M0,-5.5L5,4.5H-5z', 'M0,-6L6,0L0,6L-6,0z',
  'M-5,-2h3v-3h4v3h3v4h-3v3h-4v-3h-3z', 'M0,-6L1.8,-1.8L6,-1.8L2.6,1L3.8,5.5L0,2.8L-3.8,5.5L-2.6,1L-6,-1.8L-1.8,-1.8z',
];

export function Marker({ seat, x, y }) {
  return html`<path class="marker" d=${MARKERS[seat % MARKERS.length]} transform=${`translate(${x.toFixed(1)} ${y.toFixed(1)})`}
    fill=${seatColor(seat)} />`;
}

/** The chart in words: where every seat ended (the figure a screen reader reads instead of the lines). */
function chartSummary(summary) {
  const ends = summary.net_worth.map((series, seat) => `${playerName(seat)} ${money(series[series.length - 1])}`);
  return `${t('over.chart')}: ${ends.join(', ')}`;
}

/** Net worth of every seat, one line each, over the game's rounds. */
export function NetWorthChart({ summary }) {
  const W = 520;
  const H = 170;
  const pad = { l: 8, r: 8, t: 18, b: 22 };
  const n = summary.rounds.length;
  const all = summary.net_worth.flat();
  // The band the fortunes moved in, with a margin, so close races still show who led when.
  const top = Math.max(...all);
  const bottom = Math.min(...all);
  const margin = Math.max(1, (top - bottom) * 0.08);
  const [lo, hi] = [Math.max(0, bottom - margin), top + margin];
  const x = (k) => pad.l + (n > 1 ? (k * (W - pad.l - pad.r)) / (n - 1) : 0);
  const y = (v) => H - pad.b - ((v - lo) * (H - pad.t - pad.b)) / (hi - lo);
  const last = summary.rounds[n - 1];
  const every = Math.max(1, Math.ceil(n / 12));
  return html`<figure class="chart" data-testid="chart">
    <figcaption>${t('over.chart')}</figcaption>
    <svg viewBox=${`0 0 ${W} ${H}`} role="img" aria-label=${chartSummary(summary)}>
      <line class="axis" x1=${pad.l} y1=${H - pad.b} x2=${W - pad.r} y2=${H - pad.b} />
      <text class="tick" x=${pad.l} y=${H - 6} font-size="12">${t('over.round')} ${summary.rounds[0]}</text>
      <text class="tick" x=${W - pad.r} y=${H - 6} font-size="12" text-anchor="end">${last}</text>
      <text class="tick" x=${pad.l} y=${12} font-size="12">${money(Math.round(top))}</text>
      ${summary.net_worth.map((series, seat) => html`<polyline class="series" data-seat=${seat} fill="none" stroke=${seatColor(seat)}
        stroke-width="3" stroke-linejoin="round" points=${series.map((v, k) => `${x(k).toFixed(1)},${y(v).toFixed(1)}`).join(' ')}>
        <title>${playerName(seat)}</title></polyline>`)}
      ${summary.net_worth.map((series, seat) => series.map((v, k) => ((k % every === 0 || k === n - 1)
        ? html`<${Marker} seat=${seat} x=${x(k)} y=${y(v)} />` : null)))}
    </svg>
    <div class="legend">${summary.net_worth.map((_, seat) => html`<span class="chip"><svg width="14" height="14" viewBox="-7 -7 14 14" aria-hidden="true">
      <${Marker} seat=${seat} x=${0} y=${0} /></svg>${playerName(seat)}</span>`)}</div>
  </figure>`;
}

export function KeyNumbers({ summary }) {
  return html`<table class="key-numbers" data-testid="key-numbers">
    <thead><tr><th></th><th>${t('over.rent_collected')}</th><th>${t('over.biggest_rent')}</th><th>${t('over.auctions_won')}</th></tr></thead>
    <tbody>${summary.stats.map((row) => html`<tr data-seat=${row.seat}>
      <th><i class="dot" style=${`background:${seatColor(row.seat)}`}></i>${playerName(row.seat)}</th>
      <td>${money(row.rent_collected)}</td><td>${money(row.biggest_rent)}</td><td>${row.auctions_won}</td></tr>`)}</tbody>
  </table>`;
}

async function rematch(roomId) {
  try {
    const room = await api.rematch(roomId);
    go(`room/${room.id}`);
  } catch (err) { showError(err); }
}

export function OverButtons({ seated }) {
  return html`<div class="buttons">
    ${seated && html`<button class="primary big" data-action="rematch" onClick=${() => rematch(state.roomId)}>${t('over.rematch')}</button>`}
    <a class="button" href="#/lobby" data-action="back_to_lobby">${t('over.back')}</a></div>`;
}

export function GameOver() {
  const game = state.game;
  const result = game && game.result;
  if (!result || state.ui.hideOver) return null;
  return html`<${OverModal} result=${result} />`;
}

function OverModal({ result }) {
  const summary = useSummary(state.roomId);
  const me = state.you && !state.you.spectator ? state.you.seat : null;
  return html`<${Modal} title=${t('over.title')} onClose=${() => setUi({ hideOver: true })} cls="over-modal">
    <${WinnerMoment} result=${result} me=${me} />
    <p class="over-reason">${t(`over.reason.${result.reason}`, { round: result.round })}</p>
    <${Placements} result=${result} me=${me} />
    ${summary ? html`<${NetWorthChart} summary=${summary} /><${KeyNumbers} summary=${summary} />`
      : html`<p class="muted small">${t('over.loading')}</p>`}
    <${GameOverXp} />
    <${FairDice} />
    <${OverButtons} seated=${me !== null && me !== undefined} />
  </${Modal}>`;
}
