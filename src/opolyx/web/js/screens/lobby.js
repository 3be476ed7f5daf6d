// Lobby: public rooms (join or watch), create a room, join by code.
import { useState } from 'preact/hooks';
import { createRoom, go, joinByCode, joinRoom } from '../controller.js';
import { html } from '../html.js';
import { HouseChanges, HouseRulesEditor, draftToRules } from '../house_rules.js';
import { t } from '../i18n.js';
import { MODES, displayName, modeName } from '../names.js';
import { QuickPlayCard } from '../quickplay.js';
import { state } from '../store.js';
import { FriendsPanel } from '../social.js';

export function seatChoices(mode) {
  const m = state.modes;
  if (!m) return [2, 3, 4, 5, 6];
  const table = { ...m.common, ...(m.modes[mode] || {}) };
  if (table.allowed_seats) return table.allowed_seats;
  const out = [];
  for (let n = table.min_seats; n <= table.max_seats; n++) out.push(n);
  return out;
}

function RoomRow({ room }) {
  const filled = room.players.length;
  const waiting = room.status === 'waiting';
  const mine = room.players.some((p) => p.you);
  return html`<li class="room-row" data-room=${room.id}>
    <div class="room-mode"><b>${modeName(room.mode)}</b>${room.rated && html`<span class="chip rated">${t('quick.rated')}</span>`}<span class=${`status ${room.status}`}>${t(`lobby.status.${room.status}`)}</span></div>
    <div class="room-seats">${t('lobby.seats_filled', { n: filled, total: room.seats })}
      ${room.spectators > 0 && html` · ${t('lobby.spectators', { n: room.spectators })}`}</div>
    <${HouseChanges} changes=${room.house_changes} compact=${true} />
    <div class="room-names">${room.players.map((p) => html`<span class="chip">${displayName(p.name, p.kind === 'bot')}${p.agent ? ` · ${t('player.agent')}` : ''}</span>`)}</div>
    <div class="room-actions">
      ${mine && html`<button class="primary" onClick=${() => go(`room/${room.id}`)}>${t('lobby.open')}</button>`}
      ${!mine && waiting && filled < room.seats && html`<button class="primary" data-action="join" onClick=${() => joinRoom(room.id)}>${t('lobby.join')}</button>`}
      ${!mine && html`<button data-action="watch" onClick=${() => go(`room/${room.id}`)}>${t('lobby.watch')}</button>`}
    </div>
  </li>`;
}

function CreateRoom() {
  const [mode, setMode] = useState('classic');
  const [seats, setSeats] = useState(4);
  const [priv, setPriv] = useState(false);
  const [botsReplace, setBotsReplace] = useState(false);
  const [house, setHouse] = useState({});
  const choices = seatChoices(mode);
  const n = choices.includes(seats) ? seats : choices.includes(4) ? 4 : choices[0];
  return html`<section class="card create-room" data-testid="create-room">
    <h2>${t('lobby.create')}</h2>
    <div class="mode-picker" role="radiogroup" aria-label=${t('a11y.mode')}>${MODES.map((m) => html`<label class=${`mode-option ${m === mode ? 'on' : ''}`}>
      <input type="radio" name="mode" value=${m} checked=${m === mode} onChange=${() => setMode(m)} />
      <b>${modeName(m)}</b><span class="muted small">${t(`mode.${m}.desc`)}</span></label>`)}</div>
    <div class="row">
      <label>${t('lobby.seats')} <select name="seats" value=${n} onChange=${(e) => setSeats(Number(e.target.value))}>
        ${choices.map((c) => html`<option value=${c}>${c}</option>`)}</select></label>
      <label class="check"><input type="checkbox" name="private" checked=${priv} onChange=${(e) => setPriv(e.target.checked)} /> ${t('lobby.private')}</label>
      <label class="check"><input type="checkbox" name="bots_replace_leavers" checked=${botsReplace} onChange=${(e) => setBotsReplace(e.target.checked)} /> ${t('lobby.bots_replace_leavers')}</label>
    </div>
    <${HouseRulesEditor} mode=${mode} draft=${house} setDraft=${setHouse} />
    <div class="row">
      <button class="primary" data-action="create" onClick=${() => {
        const rules = draftToRules(state.houseRules, mode, house);
        createRoom(mode, n, !priv, botsReplace, Object.keys(rules).length ? rules : null);
      }}>${t('lobby.create_button')}</button>
    </div>
  </section>`;
}

function JoinCode() {
  const [code, setCode] = useState('');
  return html`<section class="card join-code">
    <h2>${t('lobby.join_code')}</h2>
    <form class="row" onSubmit=${(e) => { e.preventDefault(); if (code.trim()) joinByCode(code.trim()); }}>
      <input name="code" value=${code} maxlength="16" placeholder="ABC234" autocapitalize="characters"
        onInput=${(e) => setCode(e.target.value.toUpperCase())} />
      <button type="submit" data-action="join-code">${t('lobby.join')}</button>
    </form>
  </section>`;
}

export function LobbyScreen() {
  const { waiting, running } = state.rooms;
  const busy = (state.user && state.user.room) || state.ui.busyRoom;
  return html`<main class="lobby-screen">
    ${busy && html`<div class="banner">${t('lobby.in_game')} <button class="primary" onClick=${() => go(`room/${busy}`)}>${t('lobby.back_to_game')}</button></div>`}
    <${QuickPlayCard} />
    <div class="lobby-grid">
      <section class="card rooms">
        <h2>${t('lobby.public_rooms')}</h2>
        <h3>${t('lobby.waiting')}</h3>
        ${waiting.length ? html`<ul class="room-list" data-list="waiting">${waiting.map((r) => html`<${RoomRow} key=${r.id} room=${r} />`)}</ul>`
          : html`<p class="muted">${t('lobby.no_rooms')}</p>`}
        <h3>${t('lobby.running')}</h3>
        ${running.length ? html`<ul class="room-list" data-list="running">${running.map((r) => html`<${RoomRow} key=${r.id} room=${r} />`)}</ul>`
          : html`<p class="muted">${t('lobby.no_games')}</p>`}
      </section>
      <div class="lobby-side"><${CreateRoom} /><${JoinCode} /><${FriendsPanel} /></div>
    </div>
  </main>`;
}
