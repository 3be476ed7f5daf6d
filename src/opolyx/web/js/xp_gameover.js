// The game-over XP block: what each person earned and why, level-ups and card drops (docs/rules.md §19).
import { html } from './html.js';
import { t } from './i18n.js';
import { playerName, squareName } from './names.js';
import { rankOf, useProgressionTable } from './progress_view.js';
import { state } from './store.js';

function Parts({ p }) {
  const parts = p.parts || {};
  if (p.refused) return html`<span class="xp-refused">${t(`xp.refused.${p.refused}`)}</span>`;
  return html`<span class="xp-parts">
    ${t('xp.part.placement', { place: parts.place, xp: parts.placement })}
    ${parts.groups > 0 && html` · ${t('xp.part.groups', { n: parts.group_count, xp: parts.groups })}`}
    ${parts.survival > 0 && html` · ${t('xp.part.survival', { xp: parts.survival })}`}
    ${parts.reduced_from && html` · <span data-testid="xp-reduced">${t('xp.part.reduced', { xp: p.xp, from: parts.reduced_from, played: parts.played, turns: parts.turns })}</span>`}
    ${parts.ended_by_leaving && html` · ${t('xp.part.ended_by_leaving')}`}
    ${parts.capped_from && html` · ${t('xp.part.capped', { xp: p.xp })}`}
  </span>`;
}

export function GameOverXp() {
  const list = state.progression;
  const table = useProgressionTable();
  if (!list || !list.length) return null;
  const me = state.you ? state.you.seat : null;
  return html`<section class="xp-over" data-testid="xp-over">
    <h3>${t('xp.title')}</h3>
    <ul>${list.map((p) => html`<li class=${p.seat === me ? 'me' : ''} data-seat=${p.seat}>
      <b>${playerName(p.seat)}</b> <span class="xp-total" data-testid=${p.seat === me ? 'my-xp' : null}>+${p.xp} XP</span>
      <${Parts} p=${p} />
      ${p.level_after > p.level_before && html`<div class="level-up" data-testid="level-up">
        ${t('xp.level_up', { level: p.level_after })}${table ? ` · ${t(`rank.${rankOf(table, p.level_after)}`)}` : ''}</div>`}
      ${p.drops.map((c) => html`<div class=${`card-drop rarity-${c.rarity}`} data-testid="card-drop">
        ${t('xp.card_drop', { company: squareName(c.square), rarity: t(`rarity.${c.rarity}`) })}</div>`)}
    </li>`)}</ul>
  </section>`;
}
