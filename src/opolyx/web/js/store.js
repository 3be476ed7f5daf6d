// One small observable state object; components re-render through useStore().
import { useEffect, useReducer } from 'preact/hooks';

export const state = {
  screen: 'loading',   // loading | start | lobby | room
  lang: 'en',
  user: null,          // {id, nickname, language, guest, room}
  rooms: { waiting: [], running: [] },
  modes: null,         // modes.json
  houseRules: null,    // GET /api/house-rules: what a room's creator may change, and each mode's defaults
  roomId: null,
  room: null,          // RoomOut
  you: null,           // {user, seat, spectator}
  game: null,          // the engine's public snapshot
  board: null,         // board_*.json of the running game
  seq: 0,
  legal: [],
  deadlines: [],       // with a local `endsAt` (ms, performance clock)
  chat: [],
  log: [],             // [{id, seq, ev}]
  tokens: {},          // seat -> square shown (animated)
  lastDice: null,      // the last dice_rolled event
  conn: 'offline',     // offline | connecting | online
  toast: null,
  stale: true,         // the socket dropped: what is shown may be old, acting waits for a new snapshot
  prefs: { sound: false, notify: false, autopay: false, shortcuts: true },   // prefs.js: remembered in this browser
  alert: null,         // {id, text}: a decision that just became this player's
  floats: [],          // cash changes floating over the panels: [{id, seat, delta, at}]
  ui: {},              // transient UI bits: tab, trade builder, picked square, ...
};

const listeners = new Set();
let queued = false;

export function set(patch) {
  Object.assign(state, patch);
  if (!queued) {
    queued = true;
    queueMicrotask(() => { queued = false; listeners.forEach((f) => f()); });
  }
}

export function setUi(patch) {
  set({ ui: { ...state.ui, ...patch } });
}

export function subscribe(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

export function useStore() {
  const [, force] = useReducer((x) => x + 1, 0);
  useEffect(() => subscribe(force), []);
  return state;
}
