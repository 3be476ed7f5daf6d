// The HTTP lobby routes of the server (see docs/protocol.md / the server's /docs).
async function req(method, path, body) {
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
export const createRoom = (mode, seats, isPublic, botsReplaceLeavers = false) => req('POST', '/api/rooms', {
  mode, seats, public: isPublic, bots_replace_leavers: botsReplaceLeavers,
});
export const joinRoom = (id) => req('POST', `/api/rooms/${encodeURIComponent(id)}/join`);
export const joinByCode = (code) => req('POST', '/api/join', { code });
export const leaveRoom = (id) => req('POST', `/api/rooms/${encodeURIComponent(id)}/leave`);
export const addBot = (id, strength) => req('POST', `/api/rooms/${encodeURIComponent(id)}/bots`, { strength });
export const removeBot = (id, seat) => req('DELETE', `/api/rooms/${encodeURIComponent(id)}/bots/${seat}`);
export const startGame = (id) => req('POST', `/api/rooms/${encodeURIComponent(id)}/start`);
export const getJson = (path) => req('GET', path);
// Fair dice: the server recomputes the game from its revealed seed and compares with what we saw.
export const verifyGame = (id, commitment, seen) => req('POST', `/api/games/${encodeURIComponent(id)}/verify`, { commitment, seen });
