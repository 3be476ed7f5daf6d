// Team rooms before the start: the two sides (seats alternate between them, so a side is a seat parity),
// buttons to join or switch side, an invite link per side so friends who follow it sit together, and the
// creator's shuffle. The server decides; this only sends the intent (docs/protocol.md "Team choice").
import { roomCommand } from './controller.js';
import { html } from './html.js';
import { t } from './i18n.js';
import { displayName } from './names.js';

export function teamLink(room, team) {
  return room.code ? `${location.origin}/#/join/${room.code}/${team}` : `${location.origin}/#/room/${room.id}/${team}`;
}

export function TeamChoice({ room, creator }) {
  if (room.mode !== 'team' || room.status !== 'waiting') return null;
  const me = room.players.find((p) => p.you);
  const sideSeats = (team) => Array.from({ length: room.seats }, (_, i) => i).filter((i) => i % 2 === team);
  return html`<section class="team-choice" data-testid="team-choice">
    <h3>${t('team.choose')}</h3>
    <p class="muted small">${t('team.alternate')}</p>
    <div class="team-sides">${[0, 1].map((team) => {
      const seats = sideSeats(team);
      const members = room.players.filter((p) => p.team === team);
      const free = seats.length - members.length;
      const mine = me && me.team === team;
      return html`<div class=${`team-side side-${team} ${mine ? 'mine' : ''}`} data-team=${team}>
        <h4>${t('player.team', { team: team + 1 })} ${mine && html`<span class="badge">${t('player.you')}</span>`}</h4>
        <ul>${members.map((p) => html`<li>${displayName(p.name, p.kind === 'bot')}</li>`)}
          ${free > 0 && html`<li class="muted">${t('team.free', { count: free })}</li>`}</ul>
        ${me && !mine && free > 0 && html`<button data-action="team" data-team=${team} onClick=${() => roomCommand('team', team)}>${t('team.move', { team: team + 1 })}</button>`}
        ${!me && free > 0 && html`<button class="primary" data-action="join-team" data-team=${team} onClick=${() => roomCommand('join', team)}>${t('team.join_side', { team: team + 1 })}</button>`}
        ${me && html`<div class="muted small invite">${t('team.invite', { team: team + 1 })}
          <input class="link" readonly value=${teamLink(room, team)} data-team-link=${team} onFocus=${(e) => e.target.select()} /></div>`}
      </div>`;
    })}</div>
    ${creator && html`<button class="small" data-action="shuffle" onClick=${() => roomCommand('shuffle')}>${t('team.shuffle')}</button>`}
  </section>`;
}
