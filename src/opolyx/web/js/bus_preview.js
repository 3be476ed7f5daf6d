// Speed's bus: where each choice lands, said in the button and drawn on the board while a button is
// hovered or focused, so the player compares squares instead of counting steps (issue #43 item 10).
import { squareName } from './names.js';
import { setUi, state } from './store.js';

/** The square a move of `steps` from the player on turn ends on (the board wraps past Start). */
export function busTarget(game, steps) {
  const seat = game.turn;
  const p = game.players[seat];
  const size = (state.board && state.board.squares.length) || 40;
  const from = state.tokens[seat] ?? p.position;
  return (from + steps) % size;
}

export function busTargetName(game, steps) {
  return squareName(busTarget(game, steps));
}

/** Hover/focus handlers that mark the target square on the board (state.ui.preview). */
export function previewHandlers(square) {
  const on = () => setUi({ preview: square });
  const off = () => { if (state.ui.preview === square) setUi({ preview: null }); };
  return { onMouseEnter: on, onFocus: on, onMouseLeave: off, onBlur: off };
}
