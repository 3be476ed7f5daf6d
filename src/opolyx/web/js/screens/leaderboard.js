// The leaderboard: by XP or wins, all time or this week, with your own place (server reads an index);
// or by skill rating, one board per mode, people and AI agents apart.
import { useEffect, useState } from 'preact/hooks';
import { leaderboard } from '../account_api.js';
import { showError } from '../controller.js';
import { html } from '../html.js';
import { t } from '../i18n.js';
import { MODES, modeName } from '../names.js';
import { Avatar } from '../progress_view.js';
import { ratingBoard } from '../rating_view.js';
import { state } from '../store.js';

function Row({ r, me }) {
  return html`<tr class=${me ? 'me' : ''} data-user=${r.user_id}><td>${r.position}</td>
    <td><${Avatar} name=${r.avatar} /> ${r.nickname}</td><td>${r.level}</td><td class="num">${r.value}</td></tr>`;
}

function RatingRow({ r, me }) {
  return html`<tr class=${me ? 'me' : ''} data-user=${r.user_id}><td>${r.position}</td>
    <td><${Avatar} name=${r.avatar} /> ${r.nickname}</td><td class="num">${r.games}</td><td class="num">${r.rating}</td></tr>`;
}

function RatingBoard({ tab }) {
  const [mode, setMode] = useState('classic');
  const [pool, setPool] = useState('people');
  const [data, setData] = useState(null);
  useEffect(() => {
    setData(null);
    ratingBoard(mode, pool).then(setData).catch(showError);
  }, [mode, pool]);
  const me = state.user ? state.user.id : null;
  return html`<div data-testid="rating-board">
    <div class="tabs">
      <select name="rating-mode" value=${mode} onChange=${(e) => setMode(e.target.value)}>
        ${MODES.map((m) => html`<option value=${m}>${modeName(m)}</option>`)}</select>
      <span class="grow"></span>${tab('people', pool, setPool, 'rating.people')}${tab('agents', pool, setPool, 'rating.agents_board')}</div>
    ${!data ? html`<p>${t('conn.loading')}</p>` : data.rows.length === 0 ? html`<p class="muted">${t('rating.empty', { n: data.min_games })}</p>`
      : html`<table class="leaders"><thead><tr><th>#</th><th>${t('start.nickname')}</th><th>${t('rating.games', { n: '' }).replace(/[:：]\s*$/, '')}</th>
        <th>${t('rating.value')}</th></tr></thead>
        <tbody>${data.rows.map((r) => html`<${RatingRow} key=${r.user_id} r=${r} me=${r.user_id === me} />`)}</tbody></table>`}
    ${data && data.you && html`<p class="own-place" data-testid="own-place">${t('leaderboard.you', { position: data.you.position, value: data.you.rating })}</p>`}
  </div>`;
}

export function LeaderboardScreen() {
  const [by, setBy] = useState('xp');
  const [period, setPeriod] = useState('all');
  // People and AI agents (seats played through API keys) are ranked apart, never mixed.
  const [board, setBoard] = useState('people');
  const [data, setData] = useState(null);
  useEffect(() => {
    if (by !== 'rating') leaderboard(by, period, board).then(setData).catch(showError);
  }, [by, period, board]);
  const me = state.user ? state.user.id : null;
  const tab = (value, current, setter, key) => html`<button class=${value === current ? 'on' : ''}
    data-tab=${value} aria-pressed=${value === current} onClick=${() => setter(value)}>${t(key)}</button>`;
  return html`<main class="account-screen leaderboard-screen" data-testid="leaderboard">
    <section class="card">
      <h2>${t('leaderboard.title')}</h2>
      ${by !== 'rating' && html`<div class="tabs">${tab('people', board, setBoard, 'leaderboard.board_people')}${tab('agents', board, setBoard, 'leaderboard.board_agents')}</div>`}
      <div class="tabs">${tab('xp', by, setBy, 'leaderboard.by_xp')}${tab('wins', by, setBy, 'leaderboard.by_wins')}${tab('rating', by, setBy, 'rating.leaderboard')}
        <span class="grow"></span>${by !== 'rating' && html`${tab('all', period, setPeriod, 'leaderboard.all_time')}${tab('week', period, setPeriod, 'leaderboard.this_week')}`}</div>
      ${by === 'rating' ? html`<${RatingBoard} tab=${tab} />`
        : !data ? html`<p>${t('conn.loading')}</p>` : data.rows.length === 0 ? html`<p class="muted">${t('leaderboard.empty')}</p>`
        : html`<table class="leaders"><thead><tr><th>#</th><th>${t('start.nickname')}</th><th>${t('profile.level')}</th>
          <th>${t(by === 'xp' ? 'leaderboard.xp' : 'leaderboard.wins')}</th></tr></thead>
          <tbody>${data.rows.map((r) => html`<${Row} key=${r.user_id} r=${r} me=${r.user_id === me} />`)}</tbody></table>`}
      ${by !== 'rating' && data && data.you && html`<p class="own-place" data-testid="own-place">${t('leaderboard.you', { position: data.you.position, value: data.you.value })}</p>`}
    </section>
  </main>`;
}
