// Tokens walk square by square: each `moved` event queues its path, jumps (jail, teleport) go at once.
// Walking never lags far behind the game: a long move is walked in at most MAX_STEPS hops (about 0.6 s),
// and when a seat's next move arrives before its token has finished walking, the token skips ahead to
// where the previous move ended and walks only the new one.
import { set, state } from './store.js';

const queues = {};   // seat -> [square, ...]
let timer = null;
const STEP_MS = 80;
const MAX_STEPS = 8;

export function resetTokens() {
  for (const k of Object.keys(queues)) delete queues[k];
  set({ tokens: {} });
}

/** Whether some token is still walking. */
export function walking() {
  return Object.values(queues).some((q) => q.length > 0);
}

function push(seat, square) {
  (queues[seat] ||= []).push(square);
}

function lastShown(seat) {
  const q = queues[seat];
  if (q && q.length) return q[q.length - 1];
  return state.tokens[seat];
}

/** The squares of a walk of `steps` from `from`, thinned to at most MAX_STEPS hops; always ends on the target. */
export function walk(from, steps, n = 40) {
  const dir = steps < 0 ? -1 : 1;
  const count = Math.abs(steps);
  const hops = Math.min(count, MAX_STEPS);
  const out = [];
  for (let h = 1; h <= hops; h++) {
    const k = Math.round((h * count) / hops);
    out.push((((from + dir * k) % n) + n) % n);
  }
  return out;
}

/** prefers-reduced-motion: tokens jump to where a move ends instead of walking square by square. */
function reduced() {
  return typeof matchMedia === 'function' && matchMedia('(prefers-reduced-motion: reduce)').matches;
}

export function feedAnimation(game, events) {
  if (!game) return;
  if (reduced()) {
    const tokens = { ...state.tokens };
    for (const ev of events) {
      if (ev.type === 'moved' || ev.type === 'teleported') tokens[ev.seat] = ev.to;
      else if (ev.type === 'jailed') tokens[ev.seat] = 10;
    }
    if (!events.length) for (const p of game.players || []) tokens[p.seat] = p.position;
    for (const p of game.players || []) if (tokens[p.seat] === undefined) tokens[p.seat] = p.position;
    for (const k of Object.keys(queues)) delete queues[k];
    set({ tokens });
    return;
  }
  const n = (game.squares || []).length || 40;
  const tokens = { ...state.tokens };
  let changed = false;
  // Skip ahead: a seat that moves again while still walking jumps to the end of its earlier walk first.
  const moving = new Set(events.filter((e) => ['moved', 'teleported', 'jailed'].includes(e.type)).map((e) => String(e.seat)));
  for (const seat of moving) {
    const q = queues[seat];
    if (q && q.length) {
      tokens[seat] = q[q.length - 1];
      q.length = 0;
      changed = true;
    }
  }
  for (const ev of events) {
    if (ev.type === 'moved') {
      let from = lastShown(ev.seat);
      if (from === undefined) from = tokens[ev.seat];
      if (from === undefined) from = ev["from"];
      if (from !== ev["from"]) push(ev.seat, ev["from"]);
      for (const sq of walk(ev["from"], ev.steps || 0, n)) push(ev.seat, sq);
    } else if (ev.type === 'teleported') {
      push(ev.seat, ev.to);
    } else if (ev.type === 'jailed') {
      push(ev.seat, 10);
    }
  }
  // Tokens with nothing queued simply show the snapshot's position.
  for (const p of game.players || []) {
    if (!(queues[p.seat] && queues[p.seat].length) && tokens[p.seat] !== p.position && !events.length) {
      tokens[p.seat] = p.position;
      changed = true;
    } else if (tokens[p.seat] === undefined) {
      tokens[p.seat] = p.position;
      changed = true;
    }
  }
  if (changed) set({ tokens });
  if (!timer && Object.values(queues).some((q) => q.length)) timer = setInterval(tick, STEP_MS);
}

function tick() {
  const tokens = { ...state.tokens };
  let busy = false;
  for (const [seat, q] of Object.entries(queues)) {
    if (!q.length) continue;
    tokens[seat] = q.shift();
    busy = busy || q.length > 0;
  }
  set({ tokens });
  if (!busy) {
    clearInterval(timer);
    timer = null;
    // Settle on the authoritative positions.
    if (state.game && !(state.pendingSeq > state.seq)) {
      const settled = { ...tokens };
      for (const p of state.game.players) settled[p.seat] = p.position;
      set({ tokens: settled });
    }
  }
}
