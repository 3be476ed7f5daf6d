// The leaderboard: by XP or wins, all time or this week, with your own place (server reads an index).
import { useEffect, useState } from 'preact/hooks';
import { leaderboard } from '../account_api.js';
import { showError } from '../controller.js';
import { html } from '../html.js';
import { t } from '../i18n.js';
import { Avatar } from '../progress_view.js';
import { state } from '../store.js';

function Row({ r, me }) {
  return html`<tr class=${me ? 'me' : ''} data-user=${r.user_id}><td>${r.position}</td>
    <td><${Avatar} name=${r.avatar} /> ${r.nickname}</td><td>${r.level}</td><td class="num">${r.value}</td></tr>`;
}

export function LeaderboardScreen() {
  const [by, setBy] = useState('xp');
  const [period, setPeriod] = useState('all');
  // People and AI agents (seats played through API keys) are ranked apart, never mixed.
  const [board, setBoard] = useState('people');
  const [data, setData] = useState(null);
  useEffect(() => {
    leaderboard(by, period, board).then(setData).catch(showError);
  }, [by, period, board]);
  const me = state.user ? state.user.id : null;
  const tab = (value, current, setter, key) => html`<button class=${value === current ? 'on' : ''}
    data-tab=${value} aria-pressed=${value === current} onClick=${() => setter(value)}>${t(key)}</button>`;
  return html`<main class="account-screen leaderboard-screen" data-testid="leaderboard">
    <section class="card">
      <h2>${t('leaderboard.title')}</h2>
      <div class="tabs">${tab('people', board, setBoard, 'leaderboard.board_people')}${tab('agents', board, setBoard, 'leaderboard.board_agents')}</div>
      <div class="tabs">${tab('xp', by, setBy, 'leaderboard.by_xp')}${tab('wins', by, setBy, 'leaderboard.by_wins')}
        <span class="grow"></span>${tab('all', period, setPeriod, 'leaderboard.all_time')}${tab('week', period, setPeriod, 'leaderboard.this_week')}</div>
      ${!data ? html`<p>${t('conn.loading')}</p>` : data.rows.length === 0 ? html`<p class="muted">${t('leaderboard.empty')}</p>`
        : html`<table class="leaders"><thead><tr><th>#</th><th>${t('start.nickname')}</th><th>${t('profile.level')}</th>
          <th>${t(by === 'xp' ? 'leaderboard.xp' : 'leaderboard.wins')}</th></tr></thead>
          <tbody>${data.rows.map((r) => html`<${Row} key=${r.user_id} r=${r} me=${r.user_id === me} />`)}</tbody></table>`}
      ${data && data.you && html`<p class="own-place" data-testid="own-place">${t('leaderboard.you', { position: data.you.position, value: data.you.value })}</p>`}
    </section>
  </main>`;
}
