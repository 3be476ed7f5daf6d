// Progression shown in the client: levels, ranks, avatars and cards, from rules/data/progression.json.
import { getJson } from './api.js';
import { html } from './html.js';
import { t } from './i18n.js';
import { set, state } from './store.js';

export const AVATARS = {
  tophat: '🎩', car: '🚗', dog: '🐕', cat: '🐈', ship: '🚢', boot: '👢',
  rocket: '🚀', dragon: '🐉', panda: '🐼', lantern: '🏮', crown: '👑', cactus: '🌵',
};
export const RARITIES = ['common', 'uncommon', 'rare', 'epic', 'legendary'];
export const RARITY_BONUS = { common: 3, uncommon: 6, rare: 10, epic: 20, legendary: 33 };

let tableRequest = null;
let boardRequest = null;

/** The progression table (loaded once into state.progressionTable). */
export function useProgressionTable() {
  if (!state.progressionTable && !tableRequest) {
    tableRequest = getJson('/data/rules/progression.json').then((p) => set({ progressionTable: p }));
  }
  return state.progressionTable;
}

/** Squares need names outside a game too (profile cards, replays): the classic board by default. */
export function ensureBoardLoaded(name = 'classic') {
  if (state.board && state.board.name === name) return;
  if (!boardRequest || boardRequest.name !== name) {
    const p = getJson(`/data/rules/board_${name}.json`).then((b) => set({ board: b }));
    boardRequest = { name, p };
  }
}

export const xpForLevel = (table, n) => table.level_step_xp * n * (n - 1);

export function rankOf(table, level) {
  let rank = table.ranks[0].id;
  for (const r of table.ranks) if (level >= r.from) rank = r.id;
  return rank;
}

export function Avatar({ name, big = false }) {
  return html`<span class=${`avatar ${big ? 'big' : ''}`} aria-hidden="true">${AVATARS[name] || '🙂'}</span>`;
}

export function XpBar({ xp, from, to }) {
  const pct = to ? Math.max(0, Math.min(100, Math.round(((xp - from) * 100) / (to - from)))) : 100;
  return html`<div class="xp-bar" role="progressbar" aria-label=${t('a11y.xp_bar')} aria-valuenow=${pct} aria-valuemin="0" aria-valuemax="100">
    <span style=${`width:${pct}%`}></span></div>`;
}
