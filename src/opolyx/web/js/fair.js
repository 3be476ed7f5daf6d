// Fair dice (docs/security.md): the seed's commitment this browser saw first in each room, kept in
// localStorage, so the verify button checks the revealed seed against what was promised then, not against
// whatever the server says now. A reload or a later visit keeps the first one; `atStart` says whether it
// was seen when the game began (seq 0) or only later (a late spectator).
const KEY = 'opolyx.commitments';
const KEEP = 50; // rooms remembered, newest first

function load() {
  try { return JSON.parse(localStorage.getItem(KEY) || '{}') || {}; } catch { return {}; }
}

/** Remember the commitment of a room the first time it is seen; later ones never replace it. */
export function keepCommitment(roomId, commitment, atStart) {
  if (!roomId || typeof commitment !== 'string' || !commitment) return;
  const all = load();
  if (all[roomId]) return;
  all[roomId] = { commitment, atStart: Boolean(atStart), at: Date.now() };
  Object.keys(all).sort((a, b) => all[b].at - all[a].at).slice(KEEP).forEach((id) => delete all[id]);
  try { localStorage.setItem(KEY, JSON.stringify(all)); } catch { /* private mode: the snapshot's is the fallback */ }
}

/** What this browser kept for a room: {commitment, atStart} or null. */
export function keptCommitment(roomId) {
  const kept = load()[roomId];
  return kept && typeof kept.commitment === 'string' ? kept : null;
}
