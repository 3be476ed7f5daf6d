// The Chat tab's unread marker (issue #43 item 13): messages that arrived while the player looked at
// another tab. Remembered per room by the newest message's time, so a reconnect (which resends the recent
// chat as new objects) does not mark old messages unread again.
import { state } from './store.js';

const seenAt = new Map();

const stamp = (m) => Number(m.at) || 0;

/** Mark the room's chat read up to its newest message (the Chat tab is open). */
export function markChatRead() {
  const last = state.chat[state.chat.length - 1];
  if (last && state.roomId) seenAt.set(state.roomId, Math.max(seenAt.get(state.roomId) || 0, stamp(last)));
}

/** How many messages the player has not seen; the player's own lines never count. */
export function unreadChat() {
  const seen = seenAt.get(state.roomId) || 0;
  const mine = state.user && state.user.nickname;
  return state.chat.filter((m) => stamp(m) > seen && m.name !== mine).length;
}
