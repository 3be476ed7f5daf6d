// Accessibility without sight of the board (docs/accessibility.md): two live regions (polite for what
// happens, assertive for what this player must decide), the page title per screen, the screen change
// announced with focus moved to its heading, countdowns announced at a few thresholds, focus kept off the
// page body when the control that had it goes away, and a focus trap for dialogs.
// The live regions live outside Preact's tree (appended to <body> once), so re-rendering never recreates
// them: a screen reader only announces changes to a region it already knew.
import { useEffect, useRef } from 'preact/hooks';
import { t } from './i18n.js';
import { describe, QUIET } from './log.js';
import { money, playerName, squareName } from './names.js';
import { state, subscribe } from './store.js';

const KEEP = 12;          // lines kept in the polite region (older ones are removed, never re-read)
const FLOOD = 20;         // more new log lines than this at once is a reload of the history: not read out
// Moves and purchase offers are quiet in the log's look, but a player who cannot see the board needs them.
const SPOKEN_QUIET = new Set(['moved', 'purchase_offered']);

let polite = null;
let assertive = null;

function region(id, live) {
  const el = document.createElement('div');
  el.id = id;
  el.className = 'sr-only';
  el.setAttribute('aria-live', live);
  el.setAttribute('aria-atomic', 'false');
  el.setAttribute('aria-relevant', 'additions');
  el.dataset.testid = id;
  document.body.appendChild(el);
  return el;
}

/** Says `text` through a live region; assertive interrupts (a decision), polite waits its turn. */
export function announce(text, urgent = false) {
  if (!text || typeof document === 'undefined') return;
  if (!polite) { polite = region('a11y-polite', 'polite'); assertive = region('a11y-assertive', 'assertive'); }
  const el = urgent ? assertive : polite;
  const line = document.createElement('p');
  line.textContent = text;
  el.appendChild(line);
  while (el.childElementCount > KEEP) el.firstElementChild.remove();
}

// ------------------------------------------------------------------ page title and screen changes

/** The words for the screen on show, used as the page title ("Lobby · opolyx") and announced on change. */
export function screenTitle() {
  const s = state.screen;
  let key = `a11y.title.${s}`;
  if (s === 'room') key = state.room && state.room.status !== 'waiting' && state.game ? 'a11y.title.game' : 'a11y.title.room';
  const name = t(key);
  return name === key ? 'opolyx' : `${name} · opolyx`;
}

function screenKey() {
  if (state.screen !== 'room') return `${state.screen}/${state.screenArg || ''}`;
  return state.room && state.room.status !== 'waiting' && state.game ? `game/${state.roomId}` : `room/${state.roomId}`;
}

/** After a screen change: its heading takes the focus (read out by screen readers), unless a field
 * asked for it (the start screen's nickname). */
function focusScreen() {
  const active = document.activeElement;
  if (active && active !== document.body && active.matches('input, select, textarea') && active.isConnected) return;
  const target = document.querySelector('main h1, main h2, main');
  if (!target) return;
  if (!target.hasAttribute('tabindex')) target.setAttribute('tabindex', '-1');
  target.focus({ preventScroll: true });
}

// ------------------------------------------------------------------ the game, spoken

let lastLogId = 0;
let lastRoom = null;
let lastAlert = null;
let lastScreen = null;
let lastLang = null;

function speakLog() {
  if (state.roomId !== lastRoom) { lastRoom = state.roomId; lastLogId = state.log.length ? state.log[state.log.length - 1].id : 0; return; }
  const fresh = state.log.filter((e) => e.id > lastLogId);
  if (!fresh.length) return;
  lastLogId = fresh[fresh.length - 1].id;
  if (fresh.length > FLOOD) return;
  for (const { ev } of fresh) {
    if (QUIET.has(ev.type) && !SPOKEN_QUIET.has(ev.type)) continue;
    announce(describe(ev));
  }
}

/** A decision that became this player's: said at once (the toast shows the same words). */
function speakDecision() {
  const a = state.alert;
  if (!a || a.id === lastAlert || !state.game) return;
  lastAlert = a.id;
  const p = a.pending;
  const game = state.game;
  let text;
  if (p.decision === 'trade') {
    const offer = game.trades.find((x) => x.id === p.trade);
    text = t('alert.trade_offer', { player: playerName(offer ? offer.from : null) });
  } else if (p.decision === 'bid' && game.auction) {
    text = t('a11y.decide.bid', { square: squareName(game.auction.square), amount: money(game.auction.minimum) });
  } else if (p.decision === 'pay' && game.debt) {
    text = t('alert.you_owe', { amount: money(game.debt.amount) });
  } else if (p.decision === 'buy' && game.offer !== null && game.offer !== undefined) {
    const sq = state.board && state.board.squares[game.offer];
    text = t('a11y.decide.buy', { square: squareName(game.offer), price: money(sq ? sq.price : 0) });
  } else text = t('alert.your_turn');
  announce(text, true);
}

// Countdowns of this player's own decisions, said when they cross a threshold (long clocks at 30 and
// 10 s, a 10 s auction bid at 5 s), never every second.
const spokenClocks = new Set();
function thresholds(total) {
  return total >= 20 ? [30, 10] : [5];
}

function speakClocks() {
  const me = state.you && !state.you.spectator ? state.you.seat : null;
  if (me === null || me === undefined || !state.game || state.game.over) return;
  const now = performance.now();
  for (const d of state.deadlines) {
    if (d.seat !== me) continue;
    const left = (d.endsAt - now) / 1000;
    for (const limit of thresholds(d.seconds || 0)) {
      const key = `${d.id}|${limit}`;
      if (left <= limit && left > limit - 2 && limit < (d.seconds || 0) && !spokenClocks.has(key)) {
        spokenClocks.add(key);
        announce(t('a11y.clock', { n: limit }), limit <= 10);
      }
    }
  }
}

function onChange() {
  const key = screenKey();
  if (key !== lastScreen || state.lang !== lastLang) {
    const changed = key !== lastScreen;
    // Lines already said stay in the language they were said in: a new language starts the regions afresh.
    if (lastLang !== null && state.lang !== lastLang) for (const el of [polite, assertive]) if (el) el.replaceChildren();
    lastScreen = key;
    lastLang = state.lang;
    if (!document.title.startsWith('●')) document.title = screenTitle();
    if (changed && state.screen !== 'loading') {
      announce(screenTitle().replace(/ · opolyx$/, ''));
      setTimeout(focusScreen, 60);
    }
  }
  speakLog();
  speakDecision();
}

// ------------------------------------------------------------------ focus never falls to the body

let lastFocus = null;   // {el, action, square, home}

function remember(e) {
  const el = e.target;
  if (!(el instanceof HTMLElement) || el === document.body) return;
  const home = el.closest('[data-focus-home]');
  lastFocus = { el, action: el.dataset.action || null, square: el.dataset.square || null, tab: el.dataset.tab || null,
    home: home ? home.dataset.focusHome : null };
}

function usable(el) {
  return el && el.isConnected && !el.matches(':disabled') && el.getClientRects().length > 0;
}

/** Where focus goes when the control that had it is gone: the same action if it came back, the first
 * control of the same area (the action bar, the seats), else the screen's heading. */
function restoreFocus() {
  const active = document.activeElement;
  if (active && active !== document.body && active.isConnected) return;
  if (document.querySelector('[role=dialog]')) return;   // a dialog manages its own focus
  const f = lastFocus;
  // Focus left a control that is still there (a click on empty space): that was the player's choice.
  if (!f || (f.el && f.el.isConnected && !f.el.matches(':disabled'))) return;
  let target = null;
  if (f.action) {
    const sel = `[data-action="${f.action}"]${f.square ? `[data-square="${f.square}"]` : ''}`;
    target = [...document.querySelectorAll(sel)].find(usable) || null;
  }
  if (!target && f.home) {
    const home = document.querySelector(`[data-focus-home="${f.home}"]`);
    if (home) {
      target = home;
      if (!home.hasAttribute('tabindex')) home.setAttribute('tabindex', '-1');
    }
  }
  if (!target) target = document.querySelector('main h1, main h2');
  if (target) {
    if (!target.hasAttribute('tabindex') && !target.matches('button, a, input, select, textarea')) target.setAttribute('tabindex', '-1');
    target.focus({ preventScroll: false });
  }
}

let pendingRestore = false;
function scheduleRestore() {
  if (pendingRestore) return;
  pendingRestore = true;
  requestAnimationFrame(() => { pendingRestore = false; restoreFocus(); });
}

// ------------------------------------------------------------------ dialogs

const FOCUSABLE = 'button:not([disabled]), [href], input:not([disabled]):not([type=hidden]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/** A dialog's focus: moved into it when it opens, kept inside (Tab wraps), Escape closes it, and focus
 * goes back to what opened it when it closes. `ref` is the dialog element. */
export function useDialogFocus(ref, onClose) {
  const close = useRef(onClose);
  close.current = onClose;
  useEffect(() => {
    const opener = document.activeElement;
    const openerInfo = lastFocus;
    const el = ref.current;
    if (!el) return undefined;
    // The dialog itself (its title is read out), or the control that asked for the focus.
    (el.querySelector('[autofocus]') || el).focus();
    const onKey = (e) => {
      if (e.key === 'Escape') { e.preventDefault(); e.stopPropagation(); close.current(); return; }
      if (e.key !== 'Tab') return;
      const items = [...el.querySelectorAll(FOCUSABLE)].filter((x) => x.getClientRects().length > 0);
      if (!items.length) { e.preventDefault(); return; }
      const a = items[0];
      const z = items[items.length - 1];
      if (e.shiftKey && (document.activeElement === a || document.activeElement === el)) { e.preventDefault(); z.focus(); }
      else if (!e.shiftKey && document.activeElement === z) { e.preventDefault(); a.focus(); }
    };
    el.addEventListener('keydown', onKey);
    return () => {
      el.removeEventListener('keydown', onKey);
      // Back to the opener (or, if it is gone, to where the focus logic sends it).
      requestAnimationFrame(() => {
        if (document.querySelector('[role=dialog]')) return;
        if (opener && opener !== document.body && usable(opener)) opener.focus();
        else { lastFocus = openerInfo; restoreFocus(); }
      });
    };
  }, []);
}

/** Escape closes an open <details> menu (the header's settings) and gives the focus back to its summary. */
function onEscape(e) {
  if (e.key !== 'Escape') return;
  const open = document.querySelector('details[open]');
  if (open && open.contains(document.activeElement)) {
    open.open = false;
    const summary = open.querySelector('summary');
    if (summary) summary.focus();
  }
}

let started = false;
/** Wires the page once (called from the app shell). */
export function startA11y() {
  if (started || typeof document === 'undefined') return;
  started = true;
  if (!polite) { polite = region('a11y-polite', 'polite'); assertive = region('a11y-assertive', 'assertive'); }
  subscribe(() => { onChange(); scheduleRestore(); });
  document.addEventListener('focusin', remember);
  document.addEventListener('keydown', onEscape);
  const app = document.getElementById('app');
  if (app) new MutationObserver(scheduleRestore).observe(app, { childList: true, subtree: true, attributes: true, attributeFilter: ['disabled'] });
  setInterval(speakClocks, 500);
  onChange();
}
