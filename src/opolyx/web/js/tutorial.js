// A short guide for a first game (issue #43 item 14): what a turn is, the pay step, trades and their
// fairness rule, auctions. It opens by itself once, when a player first sits at a running game, can be
// skipped at any step, and opens again from the settings menu. "Seen" is remembered in this browser.
import { html } from './html.js';
import { t } from './i18n.js';
import { set, state } from './store.js';
import { Modal } from './widgets.js';

const KEY = 'opolyx.tutorial';
export const STEPS = ['turn', 'pay', 'trade', 'auction'];

export function tutorialSeen() {
  try { return localStorage.getItem(KEY) === 'seen'; } catch { return true; }
}

function markSeen() {
  try { localStorage.setItem(KEY, 'seen'); } catch { /* private mode: it shows again next time */ }
}

export function openTutorial() {
  set({ tutorial: { step: 0 } });
}

function close() {
  markSeen();
  set({ tutorial: { closed: true } });
}

/** A seated player at a running game who has never seen the guide gets it once. */
function firstGame() {
  return state.screen === 'room' && state.game && !state.game.over && state.you && !state.you.spectator
    && state.you.seat !== null && state.you.seat !== undefined && !tutorialSeen();
}

export function Tutorial() {
  const tut = state.tutorial && !state.tutorial.closed ? state.tutorial : (firstGame() ? { step: 0 } : null);
  if (!tut) return null;
  const step = tut.step || 0;
  const last = step === STEPS.length - 1;
  const go = (k) => set({ tutorial: { step: k } });
  const key = STEPS[step];
  return html`<${Modal} title=${t(`feel.tut.${key}.title`)} onClose=${close} cls="tutorial">
    <div data-testid="tutorial" data-step=${key}>
      <p>${t(`feel.tut.${key}.text`)}</p>
      <p class="muted small" aria-live="polite">${t('feel.tut.progress', { step: step + 1, count: STEPS.length })}</p>
      <div class="buttons">
        ${step > 0 && html`<button data-action="tutorial-back" onClick=${() => go(step - 1)}>${t('feel.tut.back')}</button>`}
        ${last ? html`<button class="primary" data-action="tutorial-done" onClick=${close}>${t('feel.tut.done')}</button>`
          : html`<button class="primary" data-action="tutorial-next" onClick=${() => go(step + 1)}>${t('feel.tut.next')}</button>`}
        ${!last && html`<button class="ghost" data-action="tutorial-skip" onClick=${close}>${t('feel.tut.skip')}</button>`}
      </div>
    </div>
  </${Modal}>`;
}
