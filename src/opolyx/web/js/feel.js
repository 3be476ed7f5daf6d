// Game feel that is computed, not drawn: the money that floats in and out of the players' panels.
import { state } from './store.js';

const FLOAT_MS = 1800;
let floatId = 0;

/** The cash changes between two snapshots, as floats (+/- amounts per seat) kept for their animation. */
export function cashFloats(prev, next) {
  const now = performance.now();
  const kept = (state.floats || []).filter((f) => now - f.at < FLOAT_MS);
  if (!prev || !next || prev.players.length !== next.players.length) return kept;
  for (const p of next.players) {
    const delta = p.cash - prev.players[p.seat].cash;
    if (delta) kept.push({ id: ++floatId, seat: p.seat, delta, at: now });
  }
  return kept;
}

/** The floats of one seat still moving. */
export function floatsOf(seat) {
  const now = performance.now();
  return (state.floats || []).filter((f) => f.seat === seat && now - f.at < FLOAT_MS);
}
