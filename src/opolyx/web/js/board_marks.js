// Marks on a square that are not ownership: collectible cards (a rent bonus, docs/rules.md §19) and a
// Murabaha purchase still to pay off (§19a). Each is a disc with a light face and a dark rim, so it reads
// on any band colour (magenta included) and sits in the colour band or the square's inner corner, where
// tokens never stand (issue #43 item 8).
import { html } from './html.js';
import { t } from './i18n.js';
import { playerName, seatColor } from './names.js';
import { RARITY_BONUS } from './progress_view.js';
import { state } from './store.js';

const R = 12;

/** Seats holding a collectible card for square i; the board and the square's card show them. */
export function cardHolders(i) {
  const players = (state.game && state.game.players) || [];
  return players.filter((p) => p.cards && p.cards[String(i)]).map((p) => ({ seat: p.seat, rarity: p.cards[String(i)] }));
}

/** Centre of the k-th mark: from the far end of the band (cards) or its near end (Murabaha) inwards. */
function spot(g, band, k, fromEnd) {
  const area = band || innerStrip(g);
  const vertical = area.h > area.w;
  const along = (fromEnd ? 1 : -1) * k * (2 * R + 2);
  if (vertical) {
    const y = fromEnd ? area.y + area.h - R - 2 : area.y + R + 2;
    return { x: area.x + area.w / 2, y: y - along };
  }
  const x = fromEnd ? area.x + area.w - R - 2 : area.x + R + 2;
  return { x: x - along, y: area.y + area.h / 2 };
}

/** Squares without a band: the strip along their inner edge (towards the centre of the board). */
function innerStrip(g) {
  const d = 26;
  switch (g.side) {
    case 'bottom': return { x: g.x, y: g.y, w: g.w, h: d };
    case 'top': return { x: g.x, y: g.y + g.h - d, w: g.w, h: d };
    case 'left': return { x: g.x + g.w - d, y: g.y, w: d, h: g.h };
    default: return { x: g.x, y: g.y, w: d, h: g.h };
  }
}

export function CardMarks({ i, g, band }) {
  return cardHolders(i).map((c, k) => {
    const { x, y } = spot(g, band, k, true);
    const colour = seatColor(c.seat);
    return html`<g class=${`card-mark rarity-${c.rarity}`} data-card-seat=${c.seat}>
      <circle cx=${x} cy=${y} r=${R} fill="#ffffff" stroke="#1c2430" stroke-width="1.5" />
      <circle cx=${x} cy=${y} r=${R - 3} fill="none" stroke=${colour} stroke-width="2" />
      <text x=${x} y=${y + 5} font-size="14" text-anchor="middle" fill=${colour}>★</text>
      <title>${cardText(c)}</title></g>`;
  });
}

export function MurabahaMark({ g, band }) {
  const { x, y } = spot(g, band, 0, false);
  return html`<g class="murabaha-mark">
    <circle cx=${x} cy=${y} r=${R} fill="#1c2430" stroke="#ffffff" stroke-width="1.5" />
    <text x=${x} y=${y + 5} font-size="15" text-anchor="middle" fill="#ffffff">◷</text>
    <title>${t('square.murabaha')}</title></g>`;
}

/** "Alice holds a Rare card here: rent +10 %" — the card's effect, said where the card is shown. */
export function cardText(c) {
  return `${t('game.card_mark', { player: playerName(c.seat), rarity: t(`rarity.${c.rarity}`) })}: ${t('feel.card_bonus', { percent: RARITY_BONUS[c.rarity] || 0 })}`;
}

/** The lines for the square's card: its cards with their bonus, and what VIP means here (Halal). */
export function SquareMarks({ i, sq, view }) {
  const cards = cardHolders(i);
  const game = state.game;
  const murabahaOpen = game && game.rules && game.rules.murabaha && sq.price && (view.owner === null || view.owner === undefined);
  if (!cards.length && !murabahaOpen) return null;
  return html`<ul class="square-marks" data-testid="square-marks">
    ${cards.map((c) => html`<li data-card-seat=${c.seat}><span class="mark-star" aria-hidden="true">★</span> ${cardText(c)}</li>`)}
    ${murabahaOpen && html`<li><span class="mark-vip">VIP</span> ${t('feel.vip_murabaha')}</li>`}
  </ul>`;
}
