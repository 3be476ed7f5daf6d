// Skill ratings on the profile: each mode's rating (provisional at first, your agents' apart) and a small
// SVG chart of how it moved game by game. The numbers come from GET /api/profile/ratings.
import { useEffect, useState } from 'preact/hooks';
import { req } from './api.js';
import { html } from './html.js';
import { t } from './i18n.js';
import { modeName } from './names.js';

export const myRatings = () => req('GET', '/api/profile/ratings');
export const ratingBoard = (mode, pool) => req('GET', `/api/leaderboard/rating?mode=${mode}&pool=${pool}`);

const W = 320;
const H = 120;
const PAD = 34;

/** The points of one mode and pool: the rating before the first game, then after each game. */
export function series(history, mode, pool) {
  const mine = history.filter((p) => p.mode === mode && p.pool === pool);
  if (!mine.length) return [];
  return [mine[0].before, ...mine.map((p) => p.rating)];
}

export function RatingChart({ points }) {
  if (points.length < 2) return null;
  const lo = Math.min(...points);
  const hi = Math.max(...points);
  const span = Math.max(hi - lo, 20);
  const x = (i) => PAD + (i * (W - PAD - 8)) / (points.length - 1);
  const y = (v) => H - 14 - ((v - lo) * (H - 28)) / span;
  const line = points.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' ');
  return html`<svg class="rating-chart" data-testid="rating-chart" viewBox=${`0 0 ${W} ${H}`} role="img"
    aria-label=${t('rating.chart')} data-points=${points.length}>
    <line class="axis" x1=${PAD} y1=${H - 14} x2=${W - 8} y2=${H - 14} />
    <line class="axis" x1=${PAD} y1="8" x2=${PAD} y2=${H - 14} />
    <text x=${PAD - 4} y=${y(hi) + 3} text-anchor="end">${hi}</text>
    <text x=${PAD - 4} y=${y(lo) + 3} text-anchor="end">${lo}</text>
    <polyline points=${line} />
    ${points.map((v, i) => html`<circle cx=${x(i)} cy=${y(v)} r="2.5"><title>${v}</title></circle>`)}
  </svg>`;
}

export function RatingsCard() {
  const [data, setData] = useState(null);
  const [pick, setPick] = useState(null);
  useEffect(() => { myRatings().then(setData).catch(() => setData({ ratings: [], history: [] })); }, []);
  if (!data) return null;
  const chosen = pick || (data.ratings[0] ? `${data.ratings[0].mode}/${data.ratings[0].pool}` : null);
  const [mode, pool] = chosen ? chosen.split('/') : [null, null];
  return html`<section class="card ratings" data-testid="ratings">
    <h2>${t('rating.title')}</h2>
    ${!data.ratings.length ? html`<p class="muted">${t('rating.none')}</p>` : html`
      <ul class="rating-list">${data.ratings.map((r) => html`<li data-mode=${r.mode} data-pool=${r.pool}>
        <button class=${`link ${chosen === `${r.mode}/${r.pool}` ? 'on' : ''}`} data-action="rating-mode"
          onClick=${() => setPick(`${r.mode}/${r.pool}`)}><b>${modeName(r.mode)}</b>${r.pool === 'agents' ? ` · ${t('rating.agents')}` : ''}</button>
        <span class="rating-value" data-testid="rating-value">${r.rating}</span>
        ${r.provisional && html`<span class="badge" title=${t('rating.provisional_note', { n: 5 })}>${t('rating.provisional')}</span>`}
        <span class="muted small"> ${t('rating.games', { n: r.games })}</span></li>`)}</ul>
      <h3 class="muted small">${t('rating.chart')}</h3>
      <${RatingChart} points=${series(data.history, mode, pool)} />`}
  </section>`;
}
