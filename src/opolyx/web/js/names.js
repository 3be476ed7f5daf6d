// Names and colours shown for seats, squares, groups and cards, in the viewer's language.
import { currentLanguage, formatAmount, t } from './i18n.js';
import { state } from './store.js';

// Seat colours carry white initials at 4.5:1 or more (the same values as --seat-N in styles.css; the
// palette test checks both). Ownership is never told by colour alone: squares also show the owner's initials.
// Chosen to stay apart for people with deuteranopia or protanopia too (distinct in lightness and along
// the blue-yellow axis; tests/web/test_palette_colourblind.py measures it): blue, olive, violet, green,
// maroon, dark teal.
export const SEAT_COLORS = ['#1b6cb2', '#807700', '#6d00cc', '#39805f', '#661b00', '#0f5566'];
export const GROUP_COLORS = {
  brown: '#8d5524', light_blue: '#7fd1f0', pink: '#be3a8f', orange: '#f7941d',
  red: '#e2231a', yellow: '#f5d90a', green: '#1faa59', dark_blue: '#1d4ed8',
};
export const MODES = ['classic', 'blitz', 'speed', 'team', 'halal', 'fortuna'];

export const money = (n) => formatAmount(n);

function luminance(hex) {
  const h = hex.replace('#', '');
  const c = [0, 2, 4].map((k) => parseInt(h.slice(k, k + 2), 16) / 255)
    .map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
  return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
}

/** The text colour (white or the ink) that reads best on `hex`, e.g. a group's label on its colour. */
export function inkOn(hex) {
  const l = luminance(hex);
  return (1.05 / (l + 0.05)) >= ((l + 0.05) / (luminance('#1c2430') + 0.05)) ? '#ffffff' : '#1c2430';
}

/** A seat's colour: the one the server gave it in the room (people may pick theirs), else its seat's. */
export function seatColor(seat) {
  const players = (state.room && state.room.players) || [];
  const p = players.find((x) => x.seat === seat);
  const k = p && Number.isInteger(p.colour) ? p.colour : seat;
  return SEAT_COLORS[k % SEAT_COLORS.length];
}

export function playerName(seat) {
  if (seat === null || seat === undefined) return t('game.bank');
  const p = state.game && state.game.players[seat];
  return p ? displayName(p.name, p.bot) : t('game.seat', { seat: seat + 1 });
}

/** Bots are named by the server as "Bot <n> (<strength>)": shown in the viewer's language. */
export function displayName(name, bot) {
  const m = bot !== false && /^Bot (\d+) \((easy|normal|hard)\)$/.exec(name || '');
  return m ? t('player.bot_name', { n: m[1], strength: t(`strength.${m[2]}`) }) : name;
}

export function boardSquare(i) {
  return state.board ? state.board.squares[i] : null;
}

/** A square's name: companies carry proper names (Fortuna: the Chinese brand in zh), the rest is translated. */
export function squareName(i) {
  if (i === null || i === undefined) return '';
  const sq = boardSquare(i);
  if (!sq) return t('game.square', { n: i });
  if (['street', 'dealership', 'utility'].includes(sq.kind)) {
    return currentLanguage() === 'zh' && sq.name_zh ? sq.name_zh : sq.name;
  }
  if (sq.kind === 'corner_20') {
    const corner = (state.game && state.game.rules && state.game.rules.corner_20) || 'jackpot';
    return t(`square.${corner}`);
  }
  if (sq.kind === 'event') return t('square.event');
  return t(`square.${sq.id}`);
}

/** The second line for Fortuna's brands: the Chinese name under a Latin one, and vice versa (a board marks
 * itself bilingual; the classic board's Chinese names are translations, shown alone in Chinese). */
export function squareSubname(i) {
  const sq = boardSquare(i);
  if (!sq || !sq.name_zh || !state.board.bilingual_names || !['street', 'dealership', 'utility'].includes(sq.kind)) return '';
  return currentLanguage() === 'zh' ? sq.name : sq.name_zh;
}

export function isCompany(i) {
  const sq = boardSquare(i);
  return !!sq && ['street', 'dealership', 'utility'].includes(sq.kind);
}

/** A card's name; cards that move to a square name it (the card data says which). */
export function cardName(id) {
  const card = state.cards && state.cards.find((c) => c.id === id);
  const square = card && card.square !== undefined && card.square !== null ? squareName(card.square) : '';
  return t(`card.${id}`, { square });
}

export function modeName(mode) {
  return t(`mode.${mode}.name`);
}

/** Value of a company in a trade (docs/rules.md §8): price, or price minus the redemption cost. */
export function companyValue(i) {
  const sq = boardSquare(i);
  if (!sq || !state.game) return 0;
  const mortgaged = state.game.squares[i].mortgaged;
  if (!mortgaged) return sq.price;
  const pct = (state.game.rules && state.game.rules.redemption_percent) || 110;
  return sq.price - Math.floor((Math.floor(sq.price / 2) * pct) / 100);
}
