// Everything that talks to the server: session, routing, the lobby, the room socket.
// The client stays dumb: it shows the server's snapshots and events and sends intents.
import * as api from './api.js';
import { guessLanguage, loadLanguage, t } from './i18n.js';
import { RoomSocket } from './socket.js';
import { set, setUi, state } from './store.js';
import { feedAnimation, resetTokens } from './animate.js';
import { accountRoute } from './account_flow.js';
import { checkAlerts, clearAlerts } from './alerts.js';
import { checkAutopay, offerAutopay } from './autopay.js';
import { cashFloats } from './feel.js';
import { keepCommitment } from './fair.js';
import { watchAnswers } from './trade_answers.js';
import { loadPrefs } from './prefs.js';
import { play, soundsFor } from './sounds.js';

let socket = null;
let lobbyTimer = null;
let syncTimer = null;
let syncInFlight = false;
let lastSync = 0;
let logId = 0;
let firstRoute = true;   // the page's first screen: a seated player returns to the table
const boards = {};
const LOG_LIMIT = 400;

// ------------------------------------------------------------------ boot and routing

export async function boot() {
  const stored = localStorage.getItem('opolyx.lang');
  const lang = await loadLanguage(stored || guessLanguage());
  set({ lang, prefs: loadPrefs() });
  api.getJson('/data/rules/modes.json').then((modes) => set({ modes })).catch(() => {});
  api.getJson('/data/rules/cards.json').then((c) => set({ cards: c.cards })).catch(() => {});
  // Only someone who signed in before can have a session: a first visit asks nothing (no 401 to log).
  // The session cookie itself is HttpOnly; the server sets a readable hint beside it.
  if (localStorage.getItem('opolyx.nickname') !== null || document.cookie.split('; ').includes('opolyx_signed_in=1')) {
    try {
      const user = await api.getSession();
      set({ user });
      if (!stored && user.language && user.language !== lang) await changeLanguage(user.language, false);
    } catch {
      set({ user: null });
    }
  } else set({ user: null });
  window.addEventListener('hashchange', route);
  route();
}

export function go(path) {
  if (location.hash === `#/${path}`) route();
  else location.hash = `#/${path}`;
}

function route() {
  const [screen, arg, side] = location.hash.replace(/^#\/?/, '').split('/');
  const team = side === '0' || side === '1' ? Number(side) : null;  // an invite link may carry a team
  const first = firstRoute;
  firstRoute = false;
  if (accountRoute(screen, arg, { go, changeLanguage, toast, showError })) {
    leaveRoomScreen();
    stopLobby();
    return;
  }
  if (!state.user) {
    leaveRoomScreen();
    stopLobby();
    set({ screen: 'start', pendingRoute: screen ? location.hash : null });
    return;
  }
  if (screen === 'room' && arg && team !== null) {
    joinTeamLink(decodeURIComponent(arg), team);
    return;
  }
  if (screen === 'room' && arg) {
    stopLobby();
    openRoom(decodeURIComponent(arg));
    return;
  }
  if (screen === 'join' && arg) {
    joinByCode(decodeURIComponent(arg), team);
    return;
  }
  if (screen === 'start') {
    leaveRoomScreen();
    stopLobby();
    set({ screen: 'start' });
    return;
  }
  // A reload or a new visit while seated (the session names the room) goes straight back to the table.
  if (first && state.user.room && (!screen || screen === 'lobby')) {
    go(`room/${state.user.room}`);
    return;
  }
  leaveRoomScreen();
  set({ screen: 'lobby' });
  startLobby();
}

// ------------------------------------------------------------------ session and language

export async function changeLanguage(code, persist = true) {
  const lang = await loadLanguage(code);
  localStorage.setItem('opolyx.lang', lang);
  set({ lang });
  checkAlerts();
  if (persist && state.user) {
    api.startSession(state.user.nickname, lang).then((r) => set({ user: r.user })).catch(() => {});
  }
}

export async function signIn(nickname, language) {
  try {
    await changeLanguage(language, false);
    const r = await api.startSession(nickname, language);
    localStorage.setItem('opolyx.nickname', nickname);
    set({ user: r.user });
    const target = state.pendingRoute;
    set({ pendingRoute: null });
    if (target) { location.hash = target; route(); } else if (r.user.room) go(`room/${r.user.room}`);
    else go('lobby');
  } catch (err) { showError(err); }
}

export function signOut() {
  go('start');
}

// ------------------------------------------------------------------ toasts and errors

export function showError(err) {
  // The engine's own reason (illegal_action) says more than the server's code.
  const keys = [err && err.reason, err && err.code].filter(Boolean).map((c) => `error.${c}`);
  const key = keys.find((k) => t(k) !== k);
  const text = key ? t(key) : t('error.generic');
  toast(text, 'error');
}

export function toast(text, kind = 'info') {
  const id = Date.now() + Math.random();
  set({ toast: { id, text, kind } });
  setTimeout(() => { if (state.toast && state.toast.id === id) set({ toast: null }); }, 4000);
}

// ------------------------------------------------------------------ lobby

function startLobby() {
  refreshLobby();
  clearInterval(lobbyTimer);
  lobbyTimer = setInterval(refreshLobby, 3000);
}

function stopLobby() {
  clearInterval(lobbyTimer);
  lobbyTimer = null;
}

export async function refreshLobby() {
  try {
    const [rooms, user] = await Promise.all([api.listRooms(), api.getSession()]);
    set({ rooms, user });
  } catch (err) {
    if (err.status === 401) { set({ user: null }); route(); }
  }
}

export async function createRoom(mode, seats, isPublic, botsReplaceLeavers = false, houseRules = null) {
  try {
    const room = await api.createRoom(mode, seats, isPublic, botsReplaceLeavers, houseRules);
    go(`room/${room.id}`);
  } catch (err) { handleSeatError(err); }
}

export async function joinRoom(id) {
  try {
    await api.joinRoom(id);
    go(`room/${id}`);
  } catch (err) { handleSeatError(err); }
}

/** A public Team room's invite link for one side: sit on that side, then open the room either way. */
async function joinTeamLink(id, team) {
  try { await api.joinRoom(id, team); } catch (err) { handleSeatError(err); }
  go(`room/${encodeURIComponent(id)}`);
}

export async function joinByCode(code, team = null) {
  try {
    const room = await api.joinByCode(code, team);
    go(`room/${room.id}`);
  } catch (err) { handleSeatError(err); if (state.screen !== 'room') go('lobby'); }
}

function handleSeatError(err) {
  if (err.code === 'already_in_game' && err.room) {
    setUi({ busyRoom: err.room });
  }
  showError(err);
}

// ------------------------------------------------------------------ the room

function leaveRoomScreen() {
  if (socket) socket.close();
  socket = null;
  clearTimeout(syncTimer);
  clearAlerts();
  if (state.roomId) set({ roomId: null, room: null, game: null, you: null, legal: [], deadlines: [], log: [], chat: [] });
}

function openRoom(id) {
  if (state.roomId === id && socket) { set({ screen: 'room' }); return; }
  leaveRoomScreen();
  resetTokens();
  set({
    screen: 'room', roomId: id, room: null, game: null, you: null, board: null, seq: 0, legal: [],
    deadlines: [], chat: [], log: [], lastDice: null, ui: { tab: 'log' },
  });
  socket = new RoomSocket(id, { onFrame, onStatus });
}

/** A dropped socket makes what is on screen stale: acting waits until a fresh snapshot is back. */
function onStatus(conn) {
  set(conn === 'online' ? { conn } : { conn, stale: true });
}

export async function roomCommand(kind, ...args) {
  const id = state.roomId;
  try {
    if (kind === 'addBot') await api.addBot(id, args[0]);
    else if (kind === 'removeBot') await api.removeBot(id, args[0]);
    else if (kind === 'start') await api.startGame(id);
    else if (kind === 'join') await api.joinRoom(id, args.length ? args[0] : null);
    else if (kind === 'team') await api.chooseTeam(id, args[0]);
    else if (kind === 'shuffle') await api.shuffleTeams(id);
    else if (kind === 'houseRules') { await api.setHouseRules(id, args[0]); toast(t('house.saved')); }
    else if (kind === 'leave') {
      await api.leaveRoom(id);
      go('lobby');
      return;
    }
    // The socket brings the new room; ask for it anyway when the socket is down.
    if (!socket || state.conn !== 'online') set({ room: await api.getRoom(id) });
    else if (kind === 'join') socket.send({ type: 'sync' });
    return true;
  } catch (err) { handleSeatError(err); return false; }
}

export function sendAction(action) {
  if (!socket || state.stale) return;
  socket.send({ type: 'action', action });
}

/** More time for this player's pay step (the server lengthens that clock once per debt; docs/accessibility.md). */
export function askMoreTime() {
  if (socket && !state.stale) socket.send({ type: 'more_time' });
}

export function sendChat(text) {
  if (socket && text.trim()) socket.send({ type: 'chat', text: text.trim() });
}

function deadlinesWithEnds(list) {
  const now = performance.now();
  return (list || []).map((d) => ({ ...d, endsAt: now + d.remaining * 1000 }));
}

async function ensureBoard(name) {
  if (!name) return;
  if (!boards[name]) boards[name] = api.getJson(`/data/rules/board_${name}.json`);
  const board = await boards[name];
  if (state.game && state.game.board === name && state.board !== board) set({ board });
}

function pushLog(seq, events) {
  const log = state.log.slice();
  for (const ev of events) log.push({ id: ++logId, seq, ev });
  set({ log: log.length > LOG_LIMIT ? log.slice(log.length - LOG_LIMIT) : log });
}

function requestSync() {
  // Events frames carry no full state: fetch a fresh snapshot, at most a few times a second.
  if (syncInFlight) { state.syncAgain = true; return; }
  const wait = Math.max(0, 200 - (performance.now() - lastSync));
  clearTimeout(syncTimer);
  syncTimer = setTimeout(() => {
    if (!socket) return;
    syncInFlight = socket.send({ type: 'sync' }) !== null;
    lastSync = performance.now();
    state.syncAgain = false;
  }, wait);
}

function onFrame(frame) {
  switch (frame.type) {
    case 'snapshot': {
      syncInFlight = false;
      const game = frame.game;
      const floats = cashFloats(state.game, game);
      if (game && game.over && state.game && !state.game.over && state.you && game.result
        && game.result.placements[0] && game.result.placements[0].seat === state.you.seat) play('win');
      set({ stale: false, floats,
        room: frame.room, you: frame.you, game, seq: frame.seq, legal: frame.legal || [],
        deadlines: deadlinesWithEnds(frame.deadlines), chat: frame.chat || state.chat,
        progression: frame.progression || null, fairness: frame.fairness || null,
      });
      // Fair dice: keep the first commitment seen in this room (seq 0: the game's start).
      if (frame.fairness && frame.room) keepCommitment(frame.room.id, frame.fairness.commitment, frame.seq === 0);
      // The server's recent events replace the log (a reconnect or a late spectator sees the game so far).
      if (frame.history) set({ log: frame.history.slice(-LOG_LIMIT).map((h) => ({ id: ++logId, seq: h.seq, ev: h.event })) });
      if (game) {
        ensureBoard(game.board);
        feedAnimation(game, []);
      }
      if (state.syncAgain || (state.pendingSeq && state.pendingSeq > frame.seq)) requestSync();
      checkAlerts();
      checkAutopay(sendAction);
      break;
    }
    case 'events': {
      watchAnswers(frame.events);
      offerAutopay(frame.events);
      const patch = { legal: frame.legal || [], deadlines: deadlinesWithEnds(frame.deadlines) };
      if (frame.progression) patch.progression = frame.progression;
      const dice = [...frame.events].reverse().find((e) => e.type === 'dice_rolled');
      if (dice) patch.lastDice = { ...dice, seq: frame.seq };
      // The socket asked for changes: they apply to the game of the frame just before this one, so a
      // missed frame (a seq gap) falls through to asking for a snapshot.
      const game = frame.game
        || (frame.game_changes && state.game && state.seq === frame.seq - 1 ? { ...state.game, ...frame.game_changes } : null);
      if (game) {
        patch.floats = cashFloats(state.game, game);
        patch.game = game;
        patch.seq = frame.seq;
      } else if (state.game) {
        patch.game = { ...state.game, pending: frame.pending, over: frame.over, result: frame.result || state.game.result };
        if (frame.over) patch.game.phase = 'over';
        state.pendingSeq = frame.seq;
        requestSync();
      }
      set(patch);
      pushLog(frame.seq, frame.events);
      feedAnimation(state.game, frame.events);
      soundsFor(frame.events);
      checkAlerts();
      checkAutopay(sendAction);
      break;
    }
    case 'notice':
      pushLog(frame.seq, [frame.event]);
      break;
    case 'room':
      set({ room: frame.room });
      if (frame.room.status === 'running' && !state.game && socket) socket.send({ type: 'sync' });
      break;
    case 'presence': {
      if (!state.room) break;
      const players = state.room.players.map((p) => (p.seat === frame.seat ? { ...p, connected: frame.connected } : p));
      set({ room: { ...state.room, players } });
      break;
    }
    case 'chat':
      set({ chat: [...state.chat, frame].slice(-100) });
      break;
    case 'error':
      if (frame.code === 'rate_limited' && syncInFlight) syncInFlight = false;
      showError(frame);
      break;
    case 'closed':
      if (frame.code === 4401) { set({ user: null }); route(); } else { toast(t('error.room_not_found'), 'error'); go('lobby'); }
      break;
    default:
      break;
  }
}
