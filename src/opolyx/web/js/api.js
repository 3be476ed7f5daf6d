// The HTTP lobby routes of the server (see docs/protocol.md / the server's /docs).
export async function req(method, path, body) {
  const init = { method, credentials: 'same-origin', headers: {} };
  if (body !== undefined) {
    init.headers['content-type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const r = await fetch(path, init);
  if (r.status === 204) return null;
  const data = await r.json().catch(() => ({}));
  if (!r.ok) {
    const err = new Error(data.message || r.statusText);
    err.code = data.code || `http_${r.status}`;
    err.status = r.status;
    err.room = data.room;
    throw err;
  }
  return data;
}

export const getSession = () => req('GET', '/api/session');
export const startSession = (nickname, language) => req('POST', '/api/session', { nickname, language });
export const listRooms = () => req('GET', '/api/rooms');
export const getRoom = (id) => req('GET', `/api/rooms/${encodeURIComponent(id)}`);
export const createRoom = (mode, seats, isPublic, botsReplaceLeavers = false, houseRules = null) => req('POST', '/api/rooms', {
  mode, seats, public: isPublic, bots_replace_leavers: botsReplaceLeavers, house_rules: houseRules,
});
// Team rooms: `team` (0 or 1) asks for a seat on that side, e.g. from an invite link.
export const joinRoom = (id, team = null) => req('POST', `/api/rooms/${encodeURIComponent(id)}/join`, team === null ? undefined : { team });
export const joinByCode = (code, team = null) => req('POST', '/api/join', team === null ? { code } : { code, team });
export const chooseTeam = (id, team) => req('POST', `/api/rooms/${encodeURIComponent(id)}/team`, { team });
export const shuffleTeams = (id) => req('POST', `/api/rooms/${encodeURIComponent(id)}/shuffle`);
export const setHouseRules = (id, houseRules) => req('PUT', `/api/rooms/${encodeURIComponent(id)}/house-rules`, { house_rules: houseRules });
export const leaveRoom = (id) => req('POST', `/api/rooms/${encodeURIComponent(id)}/leave`);
export const addBot = (id, strength) => req('POST', `/api/rooms/${encodeURIComponent(id)}/bots`, { strength });
export const removeBot = (id, seat) => req('DELETE', `/api/rooms/${encodeURIComponent(id)}/bots/${seat}`);
export const startGame = (id) => req('POST', `/api/rooms/${encodeURIComponent(id)}/start`);
export const rematch = (id) => req('POST', `/api/rooms/${encodeURIComponent(id)}/rematch`);
export const getJson = (path) => req('GET', path);
// Fair dice: the server recomputes the game from its revealed seed and compares with what we saw.
export const verifyGame = (id, commitment, seen) => req('POST', `/api/games/${encodeURIComponent(id)}/verify`, { commitment, seen });
