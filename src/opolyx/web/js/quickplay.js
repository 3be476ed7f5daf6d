// Quick play ("Play now"): one click queues you for a table of a mode; while you wait the countdown to
// bots filling the table is shown, with "start with bots now" and "leave the queue". The server forms the
// tables (docs/protocol.md, /api/quickplay); this polls where you are and opens your room once seated.
import { useEffect, useState } from 'preact/hooks';
import { req } from './api.js';
import { go, showError, toast } from './controller.js';
import { html } from './html.js';
import { t } from './i18n.js';
import { MODES, modeName } from './names.js';
import { set, state } from './store.js';
import { GameScreen } from './game_screen.js';

const POLL_MS = 1000;
let poller = null;

export const quickJoin = (mode, seats, strength) => req('POST', '/api/quickplay', { mode, seats, strength });
export const quickStatus = () => req('GET', '/api/quickplay');
export const quickBots = () => req('POST', '/api/quickplay/bots');
export const quickLeave = () => req('DELETE', '/api/quickplay');

/** Keep what the server said, with a local end time for the countdown. */
function show(status) {
  // A table formed and its room is opening: the server says "queued" without the ticket's details.
  const before = status.status === 'queued' && !status.mode && state.quick ? state.quick : {};
  const quick = { ...before, ...status, endsAt: status.remaining != null ? performance.now() + status.remaining * 1000 : null };
  set({ quick });
  if (status.status === 'seated' && status.room) {
    stopPolling();
    set({ quick: null });
    toast(t('quick.seated'), 'info');
    go(`room/${status.room}`);
  } else if (status.status === 'queued') startPolling();
  else stopPolling();
}

function startPolling() {
  if (poller) return;
  poller = setInterval(async () => {
    if (state.screen !== 'lobby') { stopPolling(); return; }
    try { show(await quickStatus()); } catch (err) { stopPolling(); showError(err); }
  }, POLL_MS);
}

function stopPolling() {
  clearInterval(poller);
  poller = null;
}

async function act(call) {
  GameScreen.preload();  // the table's code, fetched while the queue forms a table
  try { show(await call()); } catch (err) {
    if (err.code === 'already_in_game' && err.room) set({ ui: { ...state.ui, busyRoom: err.room } });
    showError(err);
  }
}

function seatsFor(mode, wanted) {
  if (wanted === 'any') return null;
  const n = Number(wanted);
  return mode === 'team' && n !== 4 && n !== 6 ? null : n;
}

function Countdown({ quick }) {
  const [, tick] = useState(0);
  useEffect(() => {
    const id = setInterval(() => tick((x) => x + 1), 250);
    return () => clearInterval(id);
  }, []);
  const left = quick.endsAt == null ? 0 : Math.max(0, Math.ceil((quick.endsAt - performance.now()) / 1000));
  return html`<div class="quick-wait" data-testid="quick-wait" aria-live="polite">
    <p><b>${t('quick.waiting', { mode: modeName(quick.mode) })}</b></p>
    <p class="quick-countdown" data-testid="quick-countdown" data-seconds=${left}>${t('quick.countdown', { seconds: left })}</p>
    <div class="quick-bar"><span style=${`width:${quick.wait_seconds ? (100 * left) / quick.wait_seconds : 0}%`}></span></div>
    ${quick.position && html`<p class="muted small">${t('quick.position', { waiting: quick.waiting, position: quick.position })}</p>`}
    <div class="buttons">
      <button class="primary" data-action="quick-bots" onClick=${() => act(quickBots)}>${t('quick.start_bots')}</button>
      <button data-action="quick-leave" onClick=${() => act(quickLeave)}>${t('quick.leave')}</button>
    </div>
  </div>`;
}

export function QuickPlayCard() {
  const [seats, setSeats] = useState('any');
  const [strength, setStrength] = useState('normal');
  const [wait, setWait] = useState(null);
  useEffect(() => {
    quickStatus().then((s) => { setWait(s.wait_seconds); show(s); }).catch(() => {});
    return stopPolling;
  }, []);
  const quick = state.quick && state.quick.status === 'queued' ? state.quick : null;
  return html`<section class="card quick-play" data-testid="quick-play">
    <h2>${t('quick.title')}</h2>
    ${quick ? html`<${Countdown} quick=${quick} />` : html`
      <p class="muted small">${t('quick.why', { seconds: wait == null ? 20 : Math.round(wait) })}</p>
      <div class="row">
        <label>${t('quick.seats')} <select name="quick-seats" value=${seats} onChange=${(e) => setSeats(e.target.value)}>
          <option value="any">${t('quick.any')}</option>
          ${[2, 3, 4, 5, 6].map((n) => html`<option value=${n}>${n}</option>`)}</select></label>
        <label>${t('quick.bots')} <select name="quick-strength" value=${strength} onChange=${(e) => setStrength(e.target.value)}>
          ${['easy', 'normal', 'hard'].map((s) => html`<option value=${s}>${t(`strength.${s}`)}</option>`)}</select></label>
      </div>
      <div class="quick-modes">${MODES.map((m) => html`<button class="primary" data-action="play-now" data-mode=${m}
        title=${t(`mode.${m}.desc`)} onClick=${() => act(() => quickJoin(m, seatsFor(m, seats), strength))}>
        ${t('quick.play_mode', { mode: modeName(m) })}</button>`)}</div>`}
  </section>`;
}
