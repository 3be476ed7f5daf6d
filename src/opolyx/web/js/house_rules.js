// House rules: the editor a room's creator fills in (lobby and waiting room) and the list of changes every
// viewer sees. Bounds and each mode's defaults come from the server (GET /api/house-rules, the same data file
// the server checks against); the server has the last word, and a refused value changes nothing.
import { useEffect, useState } from 'preact/hooks';
import { getJson } from './api.js';
import { html } from './html.js';
import { formatAmount, t } from './i18n.js';
import { set, state } from './store.js';

const MONEY = new Set(['starting_cash', 'salary', 'start_landing_bonus', 'jackpot_stake', 'jail_bail']);
const SECONDS = new Set(['turn_seconds', 'auction_seconds', 'trade_seconds']);

let loading = null;

/** The catalogue of parameters and mode defaults, fetched once. */
export function useHouseCatalogue() {
  useEffect(() => {
    if (!state.houseRules && !loading) {
      loading = getJson('/api/house-rules').then((houseRules) => set({ houseRules })).catch(() => { loading = null; });
    }
  }, []);
  return state.houseRules;
}

/** A rule's value as a player reads it: amounts in the viewer's format, switches on/off, null as off. */
export function houseValue(key, value) {
  if (value === true) return t('house.on');
  if (value === false || value === null || value === undefined) return t('house.off');
  if (MONEY.has(key)) return formatAmount(value);
  if (SECONDS.has(key)) return t('house.seconds', { n: value });
  if (key === 'redemption_percent') return `${value} %`;
  return String(value);
}

/** The changes from `mode`'s defaults in an editor's draft (values equal to the default are no change). */
export function draftChanges(catalogue, mode, draft) {
  const defaults = (catalogue && catalogue.defaults[mode]) || {};
  return Object.keys(draft).filter((k) => k in defaults && draft[k] !== defaults[k])
    .map((k) => ({ key: k, default: defaults[k], value: draft[k] }));
}

/** Only the real changes of a draft, as the server takes them. */
export function draftToRules(catalogue, mode, draft) {
  const out = {};
  for (const c of draftChanges(catalogue, mode, draft)) out[c.key] = c.value;
  return out;
}

/** "Unrated, no XP" and every change from the mode; `compact` for a lobby row. */
export function HouseChanges({ changes, compact = false }) {
  if (!changes || !changes.length) return null;
  return html`<div class=${`house-changes ${compact ? 'compact' : ''}`} data-testid="house-changes">
    <span class="badge warn" data-house-unrated>${compact ? t('house.badge') : t('house.unrated')}</span>
    <ul>${changes.map((c) => html`<li data-house-key=${c.key}>${t('house.change', {
      name: t(`house.param.${c.key}`), from: houseValue(c.key, c.default), to: houseValue(c.key, c.value),
    })}</li>`)}</ul>
  </div>`;
}

function Field({ spec, name, value, fallback, onChange }) {
  const id = `house-${name}`;
  const label = html`<label for=${id}>${t(`house.param.${name}`)}</label>`;
  const hint = html`<span class="muted small">${t('house.default', { value: houseValue(name, fallback) })}</span>`;
  if (spec.kind === 'bool') {
    return html`<div class="house-field" data-house-field=${name}>${label}
      <input id=${id} type="checkbox" checked=${value} onChange=${(e) => onChange(e.target.checked)} />${hint}</div>`;
  }
  const off = value === null;
  return html`<div class="house-field" data-house-field=${name}>${label}
    <input id=${id} type="number" inputmode="numeric" min=${spec.min} max=${spec.max} step=${spec.step}
      value=${off ? '' : value} disabled=${off}
      onChange=${(e) => { const n = Number(e.target.value); onChange(e.target.value === '' || !Number.isFinite(n) ? fallback : Math.round(n)); }} />
    ${spec.nullable && html`<label class="check small"><input type="checkbox" data-house-off=${name} checked=${off}
      onChange=${(e) => onChange(e.target.checked ? null : (fallback ?? spec.min))} /> ${t('house.off')}</label>`}
    <span class="muted small">${t('house.bounds', { min: houseValue(name, spec.min), max: houseValue(name, spec.max) })}</span>
    ${hint}</div>`;
}

const RENT_TAX = ['rent_tax_start', 'rent_tax_full'];

/** The rent tax's two rounds go off and on together (the server refuses one without the other). */
function linked(catalogue, defaults, draft, key, value) {
  if (!RENT_TAX.includes(key)) return draft;
  const other = RENT_TAX.find((k) => k !== key);
  const current = other in draft ? draft[other] : defaults[other];
  if (value === null) return { ...draft, [other]: null };
  if (current === null) return { ...draft, [other]: defaults[other] ?? catalogue.parameters[other].min };
  return draft;
}

/** The editor: every parameter that applies to `mode`, starting from its defaults; `draft` holds the
 * values changed so far ({key: value}) and `setDraft` replaces it. */
export function HouseRulesEditor({ mode, draft, setDraft, open = false }) {
  const catalogue = useHouseCatalogue();
  // Open at first when asked or when rules are set; then the person opens and closes it (going back to
  // the mode's values must not fold the editor away under their hand).
  const [isOpen, setOpen] = useState(null);
  if (!catalogue) return null;
  const defaults = catalogue.defaults[mode] || {};
  const changes = draftChanges(catalogue, mode, draft);
  const shown = isOpen === null ? open || changes.length > 0 : isOpen;
  const params = Object.entries(catalogue.parameters).filter(([k, spec]) => !spec.modes || spec.modes.includes(mode));
  return html`<details class="house-rules" open=${shown} onToggle=${(e) => setOpen(e.currentTarget.open)} data-testid="house-editor">
    <summary>${t('house.title')} <span class="muted small">${changes.length ? t('house.count', { count: changes.length }) : t('house.optional')}</span></summary>
    <div class="house-grid">${params.map(([k, spec]) => html`<${Field} key=${`${mode}-${k}`} spec=${spec} name=${k}
      value=${k in draft ? draft[k] : defaults[k]} fallback=${defaults[k]}
      onChange=${(v) => setDraft(linked(catalogue, defaults, { ...draft, [k]: v }, k, v))} />`)}</div>
    ${changes.length > 0 && html`<p class="house-note" data-house-unrated>${t('house.unrated')}</p>`}
    ${changes.length > 0 && html`<button type="button" class="small ghost" data-action="house-reset" onClick=${() => setDraft({})}>${t('house.reset')}</button>`}
  </details>`;
}
