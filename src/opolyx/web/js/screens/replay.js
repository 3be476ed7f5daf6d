// The replay viewer: a finished game stepped through on the board (forward, back, jump to a round).
// It reuses the game board, which draws whatever state.game holds, so the viewer fills that with the
// replay's snapshot of the chosen step. The server sends snapshots in pages of actions; pages are
// fetched when a step needs them and kept.
import { useEffect, useState } from 'preact/hooks';
import { replayPage } from '../account_api.js';
import { feedAnimation, resetTokens } from '../animate.js';
import { getJson } from '../api.js';
import { Board } from '../board.js';
import { showError } from '../controller.js';
import { html } from '../html.js';
import { has, t } from '../i18n.js';
import { playerName } from '../names.js';
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

function describe(action) {
  if (!action) return t('replay.start');
  const what = has(`action.${action.action.type}`) ? t(`action.${action.action.type}`, action.action) : action.action.type;
  return `${playerName(action.seat)}: ${what}`;
}

export function ReplayScreen() {
  const id = state.screenArg;
  const [replay, setReplay] = useState(null);
  const [view, setView] = useState({ step: 0, action: null });
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
  return html`<main class="replay-screen" data-testid="replay">
    <div class="replay-controls card">
      <button data-action="replay-first" onClick=${() => goTo(0)} aria-label=${t('replay.first')}>⏮</button>
      <button data-action="replay-back" onClick=${() => goTo(step - 1)} disabled=${step === 0}>${t('replay.back')}</button>
      <span class="replay-step" data-testid="replay-step">${t('replay.step', { n: step, total: last })}</span>
      <button data-action="replay-forward" onClick=${() => goTo(step + 1)} disabled=${step === last}>${t('replay.forward')}</button>
      <button data-action="replay-last" onClick=${() => goTo(last)} aria-label=${t('replay.last')}>⏭</button>
      <label>${t('replay.round')} <input type="number" name="round" min="1" value=${state.game ? state.game.round : 1}
        onChange=${(e) => jump(Number(e.target.value))} /></label>
      <span class="replay-action" data-testid="replay-action">${describe(view.action)}</span>
    </div>
    <${Board} />
  </main>`;
}
