// Picking one's seat colour in the room before the start (issue #43 item 9). The server keeps colours
// unique per table and tells everyone (the room's `players[].colour`); a colour another player picked is
// refused with `colour_taken`, shown like any other refusal.
import { req } from './api.js';
import { showError } from './controller.js';
import { html } from './html.js';
import { t } from './i18n.js';
import { SEAT_COLORS, displayName } from './names.js';
import { set, state } from './store.js';

async function pick(colour) {
  try {
    const room = await req('POST', `/api/rooms/${encodeURIComponent(state.roomId)}/colour`, { colour });
    if (room && room.id === state.roomId) set({ room });
  } catch (err) { showError(err); }
}

export function ColourChoice({ room }) {
  const me = room.players.find((p) => p.you);
  if (!me || room.status !== 'waiting') return null;
  const holder = (k) => room.players.find((p) => p.colour === k);
  return html`<section class="colour-choice" data-testid="colour-choice">
    <h3 id="colour-heading">${t('feel.colour.title')}</h3>
    <div class="swatches" role="group" aria-labelledby="colour-heading">${SEAT_COLORS.map((c, k) => {
      const who = holder(k);
      const mine = who && who.you;
      const label = who && !mine ? t('feel.colour.taken', { player: displayName(who.name, who.kind === 'bot') }) : t('feel.colour.pick', { n: k + 1 });
      return html`<button class=${`swatch ${mine ? 'on' : ''}`} data-action="colour" data-colour=${k} aria-pressed=${mine ? 'true' : 'false'}
        aria-label=${label} title=${label} style=${`background:${c}`} onClick=${() => pick(k)}>${mine ? '✓' : who ? (who.name || '?').slice(0, 1) : ''}</button>`;
    })}</div>
  </section>`;
}
