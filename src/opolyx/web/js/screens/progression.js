// The progression page: level table, ranks, card drop levels and rarity bonuses (docs/rules.md §19).
import { useEffect, useState } from 'preact/hooks';
import { getProfile } from '../account_api.js';
import { html } from '../html.js';
import { t } from '../i18n.js';
import { RARITIES, RARITY_BONUS, ensureBoardLoaded, rankOf, useProgressionTable, xpForLevel } from '../progress_view.js';
import { state } from '../store.js';
import { Cards } from './profile.js';

function YourCards() {
  const [cards, setCards] = useState(null);
  useEffect(() => {
    if (!state.user) return;
    ensureBoardLoaded();
    getProfile().then((p) => setCards(p.cards)).catch(() => setCards(null));
  }, []);
  if (!cards) return null;
  return html`<section class="card" data-testid="your-cards"><h2>${t('profile.cards')}</h2><${Cards} cards=${cards} /></section>`;
}

function dropLevels(table) {
  const out = [...table.drop_levels];
  for (let n = table.drop_every_from + table.drop_every; n <= table.level_cap; n += table.drop_every) out.push(n);
  return out;
}

export function ProgressionScreen() {
  const table = useProgressionTable();
  if (!table) return html`<main class="account-screen"><p>${t('conn.loading')}</p></main>`;
  const drops = new Set(dropLevels(table));
  const levels = [];
  for (let n = 1; n <= table.level_cap; n++) levels.push(n);
  return html`<main class="account-screen progression-screen" data-testid="progression">
    <section class="card">
      <h2>${t('progression.xp_title')}</h2>
      <ul class="plain">
        <li>${t('progression.placement', { list: table.placement_xp.join(' / ') })}</li>
        <li>${t('progression.groups', { xp: table.group_xp })}</li>
        <li>${t('progression.survival', { xp: table.survival_xp })}</li>
        <li>${t('progression.min_round', { round: table.min_round })}</li>
        <li>${t('progression.measured_bots')}</li>
        <li data-testid="own-turns">${t('progression.measured_turns', { seconds: table.farming.min_think_ms / 1000 })}</li>
        <li>${t('progression.measured_pace', { seconds: table.farming.min_turn_seconds })}</li>
        <li>${t('progression.measured_one_seat')}</li>
        <li>${t('progression.daily_cap', { xp: table.farming.daily_xp_cap })}</li>
        <li>${t('progression.measured_merge')}</li>
        <li>${t('progression.measured_agents')}</li>
        <li>${t('progression.vip', { level: table.vip_level })}</li>
      </ul>
    </section>
    <section class="card" tabindex="0" aria-labelledby="rarity-title">
      <h2 id="rarity-title">${t('progression.rarity_title')}</h2>
      <table class="rarities"><thead><tr><th>${t('progression.from_level')}</th>
        ${RARITIES.map((r) => html`<th class=${`rarity-${r}`}>${t(`rarity.${r}`)} (+${RARITY_BONUS[r]} %)</th>`)}</tr></thead>
        <tbody>${table.rarity_weights.map((band) => html`<tr><td>${band.from}</td>
          ${RARITIES.map((r) => html`<td>${band.weights[r]} %</td>`)}</tr>`)}</tbody></table>
      <p class="muted small">${t('progression.best_card')}</p>
    </section>
    <${YourCards} />
    <section class="card" tabindex="0" aria-labelledby="levels-title">
      <h2 id="levels-title">${t('progression.levels_title')}</h2>
      <table class="levels" data-testid="level-table"><thead><tr><th>${t('profile.level')}</th><th>XP</th>
        <th>${t('profile.rank')}</th><th>${t('progression.drop')}</th></tr></thead>
        <tbody>${levels.map((n) => html`<tr data-level=${n}><td>${n}</td><td>${xpForLevel(table, n)}</td>
          <td>${t(`rank.${rankOf(table, n)}`)}</td><td>${drops.has(n) ? '🂠' : ''}</td></tr>`)}</tbody></table>
    </section>
  </main>`;
}
