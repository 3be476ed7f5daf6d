// The room's chat: players and spectators.
import { useEffect, useRef, useState } from 'preact/hooks';
import { sendChat } from './controller.js';
import { html } from './html.js';
import { t } from './i18n.js';
import { seatColor } from './names.js';
import { state } from './store.js';
import { PersonMenu } from './social.js';

/** Whether a chat line is mine (no menu on it). */
function mine(m) {
  const you = state.you;
  if (!you) return false;
  if (m.seat !== null && m.seat !== undefined) return !you.spectator && m.seat === you.seat;
  return you.spectator && state.user && m.name === state.user.nickname;
}

export function Chat() {
  const [text, setText] = useState('');
  const ref = useRef(null);
  useEffect(() => { if (ref.current) ref.current.scrollTop = ref.current.scrollHeight; }, [state.chat.length]);
  const submit = (e) => {
    e.preventDefault();
    sendChat(text);
    setText('');
  };
  return html`<div class="chat" data-testid="chat">
    <ol class="chat-lines" ref=${ref}>
      ${state.chat.length === 0 && html`<li class="muted">${t('chat.empty')}</li>`}
      ${state.chat.map((m) => html`<li data-at=${m.at}>
        <b style=${m.seat !== null && m.seat !== undefined ? `color:${seatColor(m.seat)}` : ''}>${m.name}</b>
        ${m.spectator && html`<span class="badge">${t('chat.spectator')}</span>`}: <span class="chat-text">${m.text}</span>
        ${!mine(m) && state.roomId && html`<${PersonMenu} target=${{ room: state.roomId, at: m.at }} name=${m.name} />`}</li>`)}
    </ol>
    <form class="chat-form" onSubmit=${submit}>
      <input value=${text} maxlength="300" placeholder=${t('chat.placeholder')} aria-label=${t('chat.placeholder')}
        onInput=${(e) => setText(e.target.value)} />
      <button type="submit">${t('chat.send')}</button>
    </form>
  </div>`;
}
