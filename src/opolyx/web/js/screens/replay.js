// The replay viewer: a finished game stepped through on the board (forward, back, jump to a round).
// It reuses the game board, which draws whatever state.game holds, so the viewer fills that with the
// replay's snapshot of the chosen step.
import { useEffect, useState } from 'preact/hooks';
import { replay } from '../account_api.js';
import { feedAnimation, resetTokens } from '../animate.js';
import { getJson } from '../api.js';
import { Board } from '../board.js';
import { showError } from '../controller.js';
import { html } from '../html.js';
import { has, t } from '../i18n.js';
import { playerName } from '../names.js';
import { set, state } from '../store.js';

function show(data, step) {
  const game = data.snapshots[step];
  resetTokens();
  set({ game, you: null, legal: [], deadlines: [], lastDice: null });
  feedAnimation(game, []);
}

function describe(action, seat) {
  if (!action) return t('replay.start');
  const what = has(`action.${action.type}`) ? t(`action.${action.type}`, action) : action.type;
  return `${playerName(seat)}: ${what}`;
}

export function ReplayScreen() {
  const id = state.screenArg;
  const [data, setData] = useState(null);
  const [step, setStep] = useState(0);
  useEffect(() => {
    let live = true;
    replay(id).then(async (r) => {
      const board = await getJson(`/data/rules/board_${r.snapshots[0].board}.json`);
      if (!live) return;
      set({ board });
      setData(r);
      setStep(0);
      show(r, 0);
    }).catch(showError);
    return () => { live = false; };
  }, [id]);
  if (!data) return html`<main class="account-screen"><p>${t('conn.loading')}</p></main>`;
  const last = data.snapshots.length - 1;
  const goTo = (n) => { const k = Math.max(0, Math.min(last, n)); setStep(k); show(data, k); };
  const rounds = data.snapshots[last].round;
  const jump = (round) => goTo(data.snapshots.findIndex((g) => g.round >= round));
  const action = step > 0 ? data.actions[step - 1] : null;
  return html`<main class="replay-screen" data-testid="replay">
    <div class="replay-controls card">
      <button data-action="replay-first" onClick=${() => goTo(0)} aria-label=${t('replay.first')}>⏮</button>
      <button data-action="replay-back" onClick=${() => goTo(step - 1)} disabled=${step === 0}>${t('replay.back')}</button>
      <span class="replay-step" data-testid="replay-step">${t('replay.step', { n: step, total: last })}</span>
      <button data-action="replay-forward" onClick=${() => goTo(step + 1)} disabled=${step === last}>${t('replay.forward')}</button>
      <button data-action="replay-last" onClick=${() => goTo(last)} aria-label=${t('replay.last')}>⏭</button>
      <label>${t('replay.round')} <input type="number" name="round" min="1" max=${rounds} value=${state.game ? state.game.round : 1}
        onChange=${(e) => jump(Number(e.target.value))} /></label>
      <span class="replay-action" data-testid="replay-action">${describe(action && action.action, action && action.seat)}</span>
    </div>
    <${Board} />
  </main>`;
}
