// Tokens walk square by square: each `moved` event queues its path, jumps (jail, teleport) go at once.
import { set, state } from './store.js';

const queues = {};   // seat -> [square, ...]
let timer = null;
const STEP_MS = 80;
const MAX_QUEUE = 16;

export function resetTokens() {
  for (const k of Object.keys(queues)) delete queues[k];
  set({ tokens: {} });
}

function push(seat, square) {
  (queues[seat] ||= []).push(square);
}

function lastShown(seat) {
  const q = queues[seat];
  if (q && q.length) return q[q.length - 1];
  return state.tokens[seat];
}

export function feedAnimation(game, events) {
  if (!game) return;
  const n = (game.squares || []).length || 40;
  for (const ev of events) {
    if (ev.type === 'moved') {
      let from = lastShown(ev.seat);
      if (from === undefined) from = ev["from"];
      const steps = ev.steps || 0;
      const dir = steps < 0 ? -1 : 1;
      if (from !== ev["from"]) push(ev.seat, ev["from"]);
      for (let k = 1; k <= Math.abs(steps); k++) push(ev.seat, (((ev["from"] + dir * k) % n) + n) % n);
    } else if (ev.type === 'teleported') {
      push(ev.seat, ev.to);
    } else if (ev.type === 'jailed') {
      push(ev.seat, 10);
    }
  }
  // Tokens with nothing queued simply show the snapshot's position.
  const tokens = { ...state.tokens };
  let changed = false;
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
    if (q.length > MAX_QUEUE) q.splice(0, q.length - MAX_QUEUE);
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
