// The replay viewer: a finished game stepped through on the board (forward, back, jump to a round, play),
// with each step's caption told from the engine's events (the log's own words, never a raw template),
// everyone's cash, and the log of the game so far.
// It reuses the game board, which draws whatever state.game holds, so the viewer fills that with the
// replay's snapshot of the chosen step. The server sends snapshots in pages of actions; pages are
// fetched when a step needs them and kept.
import { useEffect, useRef, useState } from 'preact/hooks';
import { replayPage } from '../account_api.js';
import { feedAnimation, resetTokens } from '../animate.js';
import { getJson } from '../api.js';
import { Board } from '../board.js';
import { showError } from '../controller.js';
import { html } from '../html.js';
import { has, t } from '../i18n.js';
import { QUIET, describe as describeEvent } from '../log.js';
import { money, playerName, seatColor } from '../names.js';
import { set, state } from '../store.js';

/** Pages of one game's replay. Step k is the state after k actions (step 0: the start). */
class Replay {
  constructor(id, first) {
    this.id = id;
    this.total = first.total_actions;
    this.pageSize = first.actions.length || 1;
    this.pages = new Map([[0, first]]);
  }

  /** The page holding step k and k's index in its snapshots (the first page also holds the start). */
  where(k) {
    if (k <= this.pageSize) return { start: 0, index: k };
    const start = Math.floor((k - 1) / this.pageSize) * this.pageSize;
    return { start, index: k - 1 - start };
  }

  async page(start) {
    if (!this.pages.has(start)) this.pages.set(start, await replayPage(this.id, start));
    return this.pages.get(start);
  }

  async step(k) {
    const { start, index } = this.where(k);
    const page = await this.page(start);
    const action = k > 0 ? page.actions[k - 1 - start] : null;
    return { game: page.snapshots[index], action };
  }

  /** The events of the steps up to k that are in pages already fetched, newest last (for the log). */
  eventsUpTo(k, limit = 60) {
    const out = [];
    for (const [start, page] of [...this.pages.entries()].sort((a, b) => a[0] - b[0])) {
      page.actions.forEach((a, i) => {
        const step = start + i + 1;
        if (step <= k) for (const ev of a.events || []) out.push({ step, ev });
      });
    }
    return out.slice(-limit);
  }

  /** The first step whose round is at least `round` (pages are read in order until it turns up). */
  async stepOfRound(round) {
    for (let start = 0; start < Math.max(this.total, 1); start += this.pageSize) {
      const page = await this.page(start);
      const i = page.snapshots.findIndex((g) => g.round >= round);
      if (i >= 0) return start === 0 ? i : start + i + 1;
    }
    return this.total;
  }
}

function show(game) {
  resetTokens();
  set({ game, you: null, legal: [], deadlines: [], lastDice: null });
  feedAnimation(game, []);
}

/** A step in words: what the engine said happened (the log's words), or, without events, the action's name
 * when its label needs no figures (a label with a placeholder left is never shown raw). */
export function caption(action) {
  if (!action) return t('replay.start');
  const events = action.events || [];
  const told = events.filter((e) => !QUIET.has(e.type));
  const shown = (told.length ? told : events).slice(0, 3).map(describeEvent);
  if (shown.length) return shown.join(' ');
  return t('feel.replay_acted', { player: playerName(action.seat), action: actionName(action.action.type) });
}

/** An action's button words when they need no figures (checked: a placeholder left means no), else its type. */
function actionName(type) {
  const label = has(`action.${type}`) ? t(`action.${type}`) : '';
  return label && !/\{\w+\}/.test(label) ? label : type;
}

function CashPanel() {
  const game = state.game;
  if (!game) return null;
  return html`<section class="card replay-cash-card" aria-labelledby="replay-cash-h"><h2 id="replay-cash-h">${t('feel.replay_cash')}</h2>
    <ul class="replay-cash" data-testid="replay-cash">${game.players.map((p) => html`<li class=${p.out ? 'muted' : ''}>
      <i class="dot" style=${`background:${seatColor(p.seat)}`}></i>${playerName(p.seat)} <b>${money(p.cash)}</b></li>`)}</ul></section>`;
}

function ReplayLog({ replay, step }) {
  const ref = useRef(null);
  const items = replay.eventsUpTo(step);
  useEffect(() => { if (ref.current) ref.current.scrollTop = ref.current.scrollHeight; }, [step]);
  return html`<section class="card" aria-labelledby="replay-log-h"><h2 id="replay-log-h">${t('feel.replay_log')}</h2>
    <ol class="game-log replay-log" ref=${ref} data-testid="replay-log" tabindex="0" aria-labelledby="replay-log-h">
      ${items.length === 0 && html`<li class="muted">${t('log.empty')}</li>`}
      ${items.map(({ step: k, ev }, i) => html`<li key=${`${k}-${i}`} class=${`ev ${QUIET.has(ev.type) ? 'quiet' : ''}`}>${describeEvent(ev)}</li>`)}
    </ol></section>`;
}

export function ReplayScreen() {
  const id = state.screenArg;
  const [replay, setReplay] = useState(null);
  const [view, setView] = useState({ step: 0, action: null });
  const timer = useRef(null);
  useEffect(() => () => { if (timer.current !== null) clearInterval(timer.current); }, []);
  useEffect(() => {
    let live = true;
    replayPage(id, 0).then(async (first) => {
      const board = await getJson(`/data/rules/board_${first.snapshots[0].board}.json`);
      if (!live) return;
      set({ board });
      setReplay(new Replay(id, first));
      show(first.snapshots[0]);
    }).catch(showError);
    return () => { live = false; };
  }, [id]);
  if (!replay) return html`<main class="account-screen"><p>${t('conn.loading')}</p></main>`;
  const last = replay.total;
  const goTo = async (n) => {
    const k = Math.max(0, Math.min(last, n));
    try {
      const { game, action } = await replay.step(k);
      setView({ step: k, action });
      show(game);
    } catch (err) { showError(err); }
  };
  const jump = async (round) => {
    try { goTo(await replay.stepOfRound(round)); } catch (err) { showError(err); }
  };
  const step = view.step;
  const playing = timer.current !== null;
  const togglePlay = () => {
    if (timer.current !== null) { clearInterval(timer.current); timer.current = null; setView({ ...view }); return; }
    let k = step >= last ? 0 : step;
    timer.current = setInterval(() => {
      k += 1;
      if (k >= last) { clearInterval(timer.current); timer.current = null; }
      goTo(k);
    }, 900);
    setView({ ...view });
  };
  return html`<main class="replay-screen" data-testid="replay">
    <div class="replay-controls card">
      <button data-action="replay-first" onClick=${() => goTo(0)} aria-label=${t('replay.first')}>⏮</button>
      <button data-action="replay-back" onClick=${() => goTo(step - 1)} disabled=${step === 0}>${t('replay.back')}</button>
      <span class="replay-step" data-testid="replay-step">${t('replay.step', { n: step, total: last })}</span>
      <button data-action="replay-forward" onClick=${() => goTo(step + 1)} disabled=${step === last}>${t('replay.forward')}</button>
      <button data-action="replay-last" onClick=${() => goTo(last)} aria-label=${t('replay.last')}>⏭</button>
      <label>${t('replay.round')} <input type="number" name="round" min="1" value=${state.game ? state.game.round : 1}
        onChange=${(e) => jump(Number(e.target.value))} /></label>
      <button data-action="replay-play" aria-pressed=${playing} onClick=${togglePlay}>${playing ? t('feel.replay_pause') : t('feel.replay_play')}</button>
      <span class="replay-action" data-testid="replay-action" aria-live="polite">${caption(view.action)}</span>
    </div>
    <div class="replay-body">
      <${Board} />
      <div class="replay-side"><${CashPanel} /><${ReplayLog} replay=${replay} step=${step} /></div>
    </div>
  </main>`;
}
