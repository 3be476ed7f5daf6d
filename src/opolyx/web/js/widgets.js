// Small shared pieces: dice, countdowns, confirm buttons, modals.
import { useEffect, useRef, useState } from 'preact/hooks';
import { useDialogFocus } from './a11y.js';
import { html } from './html.js';
import { t } from './i18n.js';

const PIPS = {
  1: [[0, 0]], 2: [[-1, -1], [1, 1]], 3: [[-1, -1], [0, 0], [1, 1]],
  4: [[-1, -1], [1, -1], [-1, 1], [1, 1]], 5: [[-1, -1], [1, -1], [0, 0], [-1, 1], [1, 1]],
  6: [[-1, -1], [1, -1], [-1, 0], [1, 0], [-1, 1], [1, 1]],
};
// Speed's third die shows 1, 2, 3, Bus, X, X; the engine reports the face in dice_rolled.third.
const THIRD_FACES = [1, 2, 3, 'bus', 'x', 'x'];

function Die({ x, value, third }) {
  const s = 64;
  if (third !== undefined) {
    const label = typeof third === 'number' ? String(third) : t(`dice.${third}`);
    return html`<g class="die third" transform=${`translate(${x} 0)`}><g class="face">
      <rect x=${-s / 2} y=${-s / 2} width=${s} height=${s} rx="12" />
      <text y=${label.length > 2 ? 7 : 11} font-size=${label.length > 2 ? 18 : 30} text-anchor="middle">${label}</text></g></g>`;
  }
  return html`<g class="die" transform=${`translate(${x} 0)`}><g class="face">
    <rect x=${-s / 2} y=${-s / 2} width=${s} height=${s} rx="12" />
    ${(PIPS[value] || []).map(([dx, dy]) => html`<circle cx=${dx * 17} cy=${dy * 17} r="6.5" />`)}</g></g>`;
}

/** The dice; `rolling` tumbles them once (the board re-mounts them for each new roll). */
export function Dice({ dice, event, rolling }) {
  if (!dice || !dice.length) return html`<g class="dice empty"><${Die} x=${-40} value=${0} /><${Die} x=${40} value=${0} /></g>`;
  const three = dice.length === 3;
  let third;
  if (three) third = event && event.third !== undefined && event.third !== null ? event.third : THIRD_FACES[dice[2] - 1];
  const xs = three ? [-80, 0, 80] : [-40, 40];
  return html`<g class=${`dice ${rolling ? 'rolling' : ''}`} data-dice=${dice.join(',')}>
    <${Die} x=${xs[0]} value=${dice[0]} /><${Die} x=${xs[1]} value=${dice[1]} />
    ${three && html`<${Die} x=${xs[2]} third=${third} />`}</g>`;
}

function secondsLeft(deadline) {
  return Math.max(0, (deadline.endsAt - performance.now()) / 1000);
}

export function useTicker(ms = 250) {
  const [, setN] = useState(0);
  useEffect(() => {
    const id = setInterval(() => setN((n) => n + 1), ms);
    return () => clearInterval(id);
  }, [ms]);
}

export function Countdown({ deadline, svg, x, y }) {
  useTicker(250);
  if (!deadline) return null;
  const left = secondsLeft(deadline);
  const frac = deadline.seconds ? left / deadline.seconds : 0;
  const urgent = left <= 5;
  const text = t('game.seconds', { n: Math.ceil(left) });
  if (svg) {
    const r = 26;
    const len = 2 * Math.PI * r;
    return html`<g class=${`clock ${urgent ? 'urgent' : ''}`} transform=${`translate(${x} ${y})`}>
      <circle class="clock-track" r=${r} />
      <circle class="clock-arc" r=${r} stroke-dasharray=${`${len * frac} ${len}`} transform="rotate(-90)" />
      <text y="7" font-size="20" text-anchor="middle">${Math.ceil(left)}</text></g>`;
  }
  return html`<span class=${`countdown ${urgent ? 'urgent' : ''}`} title=${text}>
    <span class="bar" style=${`width:${Math.round(frac * 100)}%`}></span><span class="num">${text}</span></span>`;
}

let confirmIds = 0;

/** A button that asks first: the question is a labelled group read out as it appears, focus moves to
 * "No" (the safe answer), Escape or "No" puts the focus back on the button. */
export function ConfirmButton({ label, confirm, onClick, cls = '', action = null }) {
  const [asking, setAsking] = useState(false);
  const [id] = useState(() => `confirm-${++confirmIds}`);
  const noRef = useRef(null);
  const askRef = useRef(null);
  const back = useRef(false);
  useEffect(() => {
    if (asking && noRef.current) noRef.current.focus();
    else if (!asking && back.current && askRef.current) { back.current = false; askRef.current.focus(); }
  }, [asking]);
  const cancel = () => { back.current = true; setAsking(false); };
  if (!asking) return html`<button class=${cls} data-action=${action} ref=${askRef} onClick=${() => setAsking(true)}>${label}</button>`;
  return html`<span class="confirm" role="alertdialog" aria-labelledby=${id}
      onKeyDown=${(e) => { if (e.key === 'Escape') { e.preventDefault(); cancel(); } }}><span id=${id}>${confirm}</span>
    <button class="danger" data-action=${action ? `${action}-yes` : null} onClick=${() => { setAsking(false); onClick(); }}>${t('common.yes')}</button>
    <button class="ghost" ref=${noRef} data-action=${action ? `${action}-no` : null} onClick=${cancel}>${t('common.no')}</button></span>`;
}

let modalIds = 0;

export function Modal({ title, onClose, children, cls = '' }) {
  const ref = useRef(null);
  const [id] = useState(() => `modal-${++modalIds}`);
  useDialogFocus(ref, onClose);
  return html`<div class="modal-back" onClick=${(e) => { if (e.target === e.currentTarget) onClose(); }}>
    <div class=${`modal ${cls}`} role="dialog" aria-modal="true" aria-labelledby=${id} tabindex="-1" ref=${ref}>
      <header><h2 id=${id}>${title}</h2><button class="ghost close" aria-label=${t('common.close')} onClick=${onClose}>✕</button></header>
      <div class="modal-body">${children}</div>
    </div></div>`;
}
