// The board for the keyboard and for screen readers: each of the 40 squares is a focusable button on the
// SVG board with one tab stop for the whole board (a roving tabindex). Arrow keys walk the squares in
// playing order, Home and End jump to Start and the last square, Enter or Space opens the square's card
// (or picks it as a teleport target). Each square's name says what a sighted player reads off the board:
// owner, level, rent, mortgage, the tokens standing there.
import { t } from './i18n.js';
import { GROUP_COLORS, money, playerName, squareName } from './names.js';
import { setUi, state } from './store.js';

/** Words for square i: "6 · Harbor Optics, light blue, price 1,000. Owner Alice, 2 houses, rent 900. Here: Bob." */
export function squareLabel(i) {
  const game = state.game;
  const sq = state.board && state.board.squares[i];
  const view = game && game.squares[i];
  const parts = [`${i} · ${squareName(i)}`];
  if (sq && sq.group && GROUP_COLORS[sq.group]) parts.push(t(`group.${sq.group}`));
  if (sq && sq.price) parts.push(t('a11y.sq.price', { amount: money(sq.price) }));
  if (sq && sq.tax) parts.push(t('a11y.sq.tax', { amount: money(sq.tax) }));
  let text = `${parts.join(', ')}.`;
  if (view && view.owner !== null && view.owner !== undefined) {
    const owned = [t('a11y.sq.owner', { player: playerName(view.owner) })];
    if (view.level >= 5) owned.push(t('a11y.sq.hotel'));
    else if (view.level > 0) owned.push(t('a11y.sq.houses', { n: view.level }));
    if (view.mortgaged) owned.push(t('game.mortgaged'));
    else if (view.rent) owned.push(t('square.rent_now', { amount: money(view.rent) }));
    text += ` ${owned.join(', ')}.`;
  } else if (sq && sq.price) text += ` ${t('a11y.sq.unowned')}.`;
  const here = game ? game.players.filter((p) => !p.out && (state.tokens[p.seat] ?? p.position) === i).map((p) => playerName(p.seat)) : [];
  if (here.length) text += ` ${t('a11y.sq.here', { players: here.join(', ') })}.`;
  return text;
}

let focused = 0;

/** The square that holds the board's single tab stop. */
export function boardFocus() {
  return focused;
}

function moveTo(j, count) {
  focused = ((j % count) + count) % count;
  const el = document.querySelector(`svg.board .cell[data-square="${focused}"] .hit`);
  if (el) el.focus();
  setUi({ boardFocus: focused });
}

/** Keys on a focused square: arrows walk the ring, Home/End jump, Enter/Space act like a click. */
export function onSquareKey(e, i, activate) {
  const count = (state.board && state.board.squares.length) || 40;
  const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[e.key];
  if (step) { e.preventDefault(); moveTo(i + step, count); return; }
  if (e.key === 'Home') { e.preventDefault(); moveTo(0, count); return; }
  if (e.key === 'End') { e.preventDefault(); moveTo(count - 1, count); return; }
  if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); focused = i; activate(); }
}

/** Remembers the square a click or focus landed on, so Tab comes back to it. */
export function onSquareFocus(i) {
  focused = i;
}
