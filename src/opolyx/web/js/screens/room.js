// The waiting room: seats, bots and their strength, the join code, start for the creator.
import { useEffect, useState } from 'preact/hooks';
import { roomCommand } from '../controller.js';
import { Chat } from '../chat.js';
import { html } from '../html.js';
import { HouseChanges, HouseRulesEditor, draftToRules } from '../house_rules.js';
import { TeamChoice } from '../team_choice.js';
import { ColourChoice } from '../colour_choice.js';
import { t } from '../i18n.js';
import { displayName, modeName, seatColor } from '../names.js';
import { state } from '../store.js';
import { ConfirmButton } from '../widgets.js';
import { GameScreen } from '../game_screen.js';
import { toast } from '../controller.js';
import { InviteFriends, PersonMenu, ReliabilityBadge, useReliability } from '../social.js';

async function copyLink(link) {
  try {
    await navigator.clipboard.writeText(link);
  } catch {
    // No clipboard permission (an http page, an old browser): select the field so a long-press copies it.
    const field = document.querySelector('input.link');
    if (field) field.select();
    return;
  }
  toast(t('room.copied'));
}

const STRENGTHS = ['easy', 'normal', 'hard'];

/** The creator's house-rule editor in the waiting room, starting from the room's current rules. */
function RoomHouseRules({ room }) {
  const [draft, setDraft] = useState(null);
  const current = draft === null ? { ...(room.house_rules || {}) } : draft;
  const rules = draftToRules(state.houseRules, room.mode, current);
  return html`<div class="room-house">
    <${HouseRulesEditor} mode=${room.mode} draft=${current} setDraft=${setDraft} />
    ${draft !== null && html`<button data-action="house-save" onClick=${async () => {
      // A refused table keeps the draft on screen (the toast says why); a saved one shows the room's rules.
      if (await roomCommand('houseRules', Object.keys(rules).length ? rules : null)) setDraft(null);
    }}>${t('house.save')}</button>`}
  </div>`;
}

/** What this table will pay, said before the game (the room's ``xp`` terms, docs/accounts.md). */
function XpNotice({ xp }) {
  if (!xp) return null;
  const line = xp.pays
    ? t('xpnotice.pays', { round: xp.min_round, cap: xp.daily_cap })
    : t(xp.why === 'house_rules' ? 'xp.refused.house_rules' : 'xpnotice.agent');
  return html`<p class="muted small xp-notice" data-testid="xp-notice" data-pays=${String(xp.pays)}>${line}
    ${xp.shared && html` <b class="warn" data-testid="xp-shared">${t('xpnotice.shared')}</b>`}</p>`;
}

export function RoomScreen() {
  const room = state.room;
  const [strength, setStrength] = useState('normal');
  useEffect(() => { GameScreen.preload(); }, []);  // the table's code, fetched while people gather
  if (!room) return html`<main class="room-screen"><p class="muted">${t('conn.loading')}</p></main>`;
  const creator = state.user && room.creator === state.user.id;
  const seated = room.players.some((p) => p.you);
  const bySeat = Object.fromEntries(room.players.map((p) => [p.seat, p]));
  const free = room.seats - room.players.length;
  const link = room.code ? `${location.origin}/#/join/${room.code}` : `${location.origin}/#/room/${room.id}`;
  const reliability = useReliability();
  const canStart = creator && room.players.length >= 2 && (room.mode !== 'team' || free === 0);
  return html`<main class="room-screen">
    <section class="card" data-focus-home="room">
      <h2>${modeName(room.mode)} <span class="muted small">${t(`mode.${room.mode}.desc`)}</span></h2>
      <div class="share">
        ${room.code && html`<div class="code-box"><span>${t('room.code')}</span><b data-testid="room-code">${room.code}</b></div>`}
        <div class="muted small invite">${t('room.share')} <input class="link" readonly value=${link} aria-label=${t('a11y.share_link')} onFocus=${(e) => e.target.select()} />
          <button class="small" data-action="copy-link" onClick=${() => copyLink(link)}>${t('room.copy')}</button>
          ${typeof navigator.share === 'function' && html`<button class="small" data-action="share-link"
            onClick=${() => navigator.share({ title: 'opolyx', text: t('room.share_text'), url: link }).catch(() => {})}>${t('room.share_button')}</button>`}</div>
      </div>
      <${HouseChanges} changes=${room.house_changes} />
      ${creator && room.status === 'waiting' && html`<${RoomHouseRules} room=${room} />`}
      <${TeamChoice} room=${room} creator=${creator} />
      <${ColourChoice} room=${room} />
      <ol class="seats">${Array.from({ length: room.seats }, (_, i) => {
        const p = bySeat[i];
        return html`<li class=${`seat ${p ? 'taken' : 'empty'}`} data-seat=${i}>
          <i class="dot big" style=${`background:${p ? seatColor(i) : '#ccc'}`}></i>
          ${room.mode === 'team' && html`<span class="badge team" data-seat-team=${i % 2}>${t('player.team', { team: (i % 2) + 1 })}</span>`}
          ${p ? html`<b>${displayName(p.name, p.kind === 'bot')}</b>
              ${p.you && html`<span class="badge">${t('player.you')}</span>`}
              ${p.kind === 'bot' && html`<span class="badge bot">${t('player.bot')} · ${t(`strength.${p.strength}`)}</span>`}
              ${p.agent && html`<span class="badge bot" data-agent>${t('player.agent')}</span>`}
              ${p.kind === 'human' && !p.connected && html`<span class="badge warn">${t('player.offline')}</span>`}
              <${ReliabilityBadge} info=${reliability[i]} />
              ${p.kind === 'human' && !p.you && state.user && html`<${PersonMenu} target=${{ room: room.id, seat: i }} name=${p.name} />`}
              ${creator && p.kind === 'bot' && html`<button class="small ghost" data-action="remove-bot" data-seat=${i}
                aria-label=${t('a11y.on_player', { action: t('room.remove_bot'), player: displayName(p.name, true) })} onClick=${() => roomCommand('removeBot', i)}>${t('room.remove_bot')}</button>`}`
            : html`<span class="muted">${t('room.empty_seat')}</span>`}
        </li>`;
      })}</ol>
      <div class="row">
        ${creator && free > 0 && html`<label>${t('room.strength')} <select name="strength" value=${strength} onChange=${(e) => setStrength(e.target.value)}>
          ${STRENGTHS.map((s) => html`<option value=${s}>${t(`strength.${s}`)}</option>`)}</select></label>
          <button data-action="add-bot" onClick=${() => roomCommand('addBot', strength)}>${t('room.add_bot')}</button>`}
        ${creator && html`<button class="primary" data-action="start" disabled=${!canStart} onClick=${() => roomCommand('start')}>${t('room.start')}</button>`}
        ${!creator && seated && html`<span class="muted">${t('room.waiting_for_host')}</span>`}
        ${!seated && free > 0 && room.mode !== 'team' && html`<button class="primary" data-action="join" onClick=${() => roomCommand('join')}>${t('lobby.join')}</button>`}
        ${seated && html`<${ConfirmButton} cls="ghost" label=${t('room.leave')} confirm=${t('room.leave_confirm')} onClick=${() => roomCommand('leave')} />`}
      </div>
      ${creator && room.mode === 'team' && free > 0 && html`<p class="muted small">${t('room.team_full')}</p>`}
      <${InviteFriends} />
      <${XpNotice} xp=${room.xp} />
    </section>
    <section class="card"><h3>${t('tab.chat')}</h3><${Chat} /></section>
  </main>`;
}

