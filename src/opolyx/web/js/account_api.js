// The account routes (docs/accounts.md): sign-in links, sessions, profile, leaderboard, API keys.
import { req } from './api.js';

export const askLink = (email, language) => req('POST', '/api/auth/link', { email, language });
// `merge` only when this browser did not ask for the link (the server answered confirm_sign_in): the
// person saw whose account it is (peekLink) and chose; left out otherwise.
export const verifyLink = (token, merge) => req('POST', '/api/auth/verify', merge === undefined ? { token } : { token, merge });
export const peekLink = (token) => req('POST', '/api/auth/peek', { token });
export const getProfile = () => req('GET', '/api/profile');
export const patchProfile = (patch) => req('PATCH', '/api/profile', patch);
export const deleteAccount = () => req('DELETE', '/api/account');
export const listSessions = () => req('GET', '/api/sessions');
export const signOutOthers = () => req('DELETE', '/api/sessions/others');
export const signOut = () => req('DELETE', '/api/session');
export const leaderboard = (by, period, board = 'people') =>
  req('GET', `/api/leaderboard?by=${by}&period=${period}&board=${board}`);
// Replays with snapshots come in pages of actions (the server caps a page); `start` is an action index.
export const replayPage = (id, start) => req('GET', `/api/games/${encodeURIComponent(id)}/replay?snapshots=true&events=true&start=${start}`);
// Personal API keys for AI agents (the agents' routes; the key itself is shown once, at creation).
export const listKeys = () => req('GET', '/api/keys');
export const createKey = (label) => req('POST', '/api/keys', { label });
export const revokeKey = (id) => req('DELETE', `/api/keys/${encodeURIComponent(id)}`);
