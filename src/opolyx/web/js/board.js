// The 40-square board as one SVG: colour groups, owners, levels, mortgages, tokens, dice and the clock.
import { html } from './html.js';
import { t } from './i18n.js';
import { GROUP_COLORS, money, playerName, seatColor, squareName, squareSubname } from './names.js';
import { setUi, state } from './store.js';
import { Countdown, Dice } from './widgets.js';
import { boardFocus, onSquareFocus, onSquareKey, squareLabel } from './board_list.js';
import { CardMarks, MurabahaMark, cardHolders } from './board_marks.js';

// A second cue for the owner besides colour: each seat's outline has its own dash pattern.
const OWNER_DASH = ['', '9 4', '2 4', '12 3 2 3', '5 5', '1 6'];

/** The square's focusable face, laid over its drawing: a button named with everything the drawing shows
 * (the drawing itself is hidden from screen readers), one tab stop for the board, arrows between squares. */
function Hit({ i, g, onClick }) {
  return html`<rect class="hit" x=${g.x} y=${g.y} width=${g.w} height=${g.h} fill="transparent" role="button"
    tabindex=${boardFocus() === i ? 0 : -1} aria-label=${squareLabel(i)}
    onKeyDown=${(e) => onSquareKey(e, i, onClick)} onFocus=${() => onSquareFocus(i)} />`;
}

const U = 80;            // a normal square's short side
const C = 2 * U;         // corner side
export const SIZE = 2 * C + 9 * U;
const BAND = 26;

/** Rectangle and side of square i (0 = Start at the bottom right, play runs clockwise). */
export function geometry(i) {
  const far = SIZE - C;
  if (i === 0) return { x: far, y: far, w: C, h: C, side: 'corner' };
  if (i < 10) return { x: far - i * U, y: far, w: U, h: C, side: 'bottom' };
  if (i === 10) return { x: 0, y: far, w: C, h: C, side: 'corner' };
  if (i < 20) return { x: 0, y: far - (i - 10) * U, w: C, h: U, side: 'left' };
  if (i === 20) return { x: 0, y: 0, w: C, h: C, side: 'corner' };
  if (i < 30) return { x: C + (i - 21) * U, y: 0, w: U, h: C, side: 'top' };
  if (i === 30) return { x: far, y: 0, w: C, h: C, side: 'corner' };
  return { x: far, y: C + (i - 31) * U, w: C, h: U, side: 'right' };
}

function bandRect(g) {
  switch (g.side) {
    case 'bottom': return { x: g.x, y: g.y, w: g.w, h: BAND };
    case 'top': return { x: g.x, y: g.y + g.h - BAND, w: g.w, h: BAND };
    case 'left': return { x: g.x + g.w - BAND, y: g.y, w: BAND, h: g.h };
    case 'right': return { x: g.x, y: g.y, w: BAND, h: g.h };
    default: return null;
  }
}

function ownerRect(g) {
  const k = 16;
  switch (g.side) {
    case 'bottom': return { x: g.x, y: g.y + g.h - k, w: g.w, h: k };
    case 'top': return { x: g.x, y: g.y, w: g.w, h: k };
    case 'left': return { x: g.x, y: g.y, w: k, h: g.h };
    case 'right': return { x: g.x + g.w - k, y: g.y, w: k, h: g.h };
    default: return null;
  }
}

/** The free area for text: the square without its colour band. */
function textBox(g, hasBand) {
  const b = hasBand ? BAND : 0;
  switch (g.side) {
    case 'bottom': return { x: g.x, y: g.y + b, w: g.w, h: g.h - b };
    case 'top': return { x: g.x, y: g.y, w: g.w, h: g.h - b };
    case 'left': return { x: g.x, y: g.y, w: g.w - b, h: g.h };
    case 'right': return { x: g.x + b, y: g.y, w: g.w - b, h: g.h };
    default: return g;
  }
}

const CJK = /[\u3000-\u9fff]/;
let measurer = null;
let family = '';
const widths = new Map();

/** The width of `text` in the board's bold face at `size`: measured on a canvas, estimated without one. */
function textWidth(text, size) {
  if (measurer === null) {
    try { measurer = document.createElement('canvas').getContext('2d') || false; } catch { measurer = false; }
  }
  if (!measurer) return [...text].length * size * (CJK.test(text) ? 1 : 0.62);
  const key = `${size}|${text}`;
  if (!widths.has(key)) {
    family ||= getComputedStyle(document.documentElement).fontFamily || 'sans-serif';
    measurer.font = `600 ${size}px ${family}`;
    widths.set(key, measurer.measureText(text).width);
  }
  return widths.get(key);
}

/** Greedy word wrap for SVG text, by measured width; CJK text wraps by character. */
export function wrap(text, width, size, maxLines = 3) {
  const cjk = CJK.test(text) && !text.includes(' ');
  // A soft hyphen (U+00AD, in catalogs for long compounds such as "Einkommen\u00adsteuer") is a place a word
  // may break, with a hyphen shown at the end of the line.
  const words = cjk ? [...text].map((w) => [w, '']) : text.split(/\s+/).flatMap((w) => w.split('\u00ad')
    .map((part, k, all) => [part, k < all.length - 1 ? '-' : ' ']));
  const fits = (s) => textWidth(s, size) <= width;
  const lines = [];
  let line = '';
  let joint = '';
  for (const [w, after] of words) {
    const next = line ? line + (joint === '-' ? '' : joint) + w : w;
    if (fits(next) || !line) line = next;
    else { lines.push(joint === '-' ? `${line}-` : line); line = w; }
    joint = after;
  }
  if (line) lines.push(line);
  const cut = (l) => {
    let out = l;
    while (out.length > 1 && !fits(`${out}…`)) out = out.slice(0, -1);
    return `${out}…`;
  };
  if (lines.length > maxLines) {
    const kept = lines.slice(0, maxLines);
    kept[maxLines - 1] = cut(kept[maxLines - 1]);
    return kept;
  }
  return lines.map((l) => (fits(l) ? l : cut(l)));
}

/** Lines and font size that show `text` whole in `width` × `maxLines`, shrinking the font down to `min`
 * before anything is cut (long names such as "Midnight Towers" or German's "Einkommensteuer"). */
export function fit(text, width, size, maxLines, min = 9) {
  for (let s = size; s >= min; s -= 1) {
    const lines = wrap(text, width, s, maxLines);
    if (!lines.some((l) => l.endsWith('…'))) return { lines, size: s };
  }
  return { lines: wrap(text, width, min, maxLines), size: min };
}

function Lines({ lines, x, y, size, cls }) {
  return html`<text class=${cls} x=${x} y=${y} font-size=${size} text-anchor="middle">
    ${lines.map((l, k) => html`<tspan x=${x} dy=${k === 0 ? 0 : size * 1.12}>${l}</tspan>`)}
  </text>`;
}

function Levels({ band, level, vertical, marked }) {
  if (!level) return null;
  // Marks sit at the band's ends (board_marks.js): the houses close up between them.
  const step = marked ? 13 : 16;
  if (level >= 5) {
    const cx = band.x + band.w / 2;
    const cy = band.y + band.h / 2;
    return html`<rect class="hotel" x=${cx - 16} y=${cy - 8} width="32" height="16" rx="3" /><text class="lvl-text" x=${cx} y=${cy + 5} text-anchor="middle" font-size="13">5</text>`;
  }
  const out = [];
  for (let k = 0; k < level; k++) {
    const start = (vertical ? band.h : band.w) / 2 - ((level - 1) * step) / 2;
    const x = vertical ? band.x + band.w / 2 - 6 : band.x + start + k * step - 6;
    const y = vertical ? band.y + start + k * step - 6 : band.y + band.h / 2 - 6;
    out.push(html`<rect class="house" x=${x} y=${y} width="12" height="12" rx="2" />`);
  }
  return out;
}

function Car({ x, y }) {
  return html`<g class="icon-car" transform=${`translate(${x - 20} ${y - 12})`}>
    <path d="M4 14 L9 5 Q10 3 13 3 L27 3 Q30 3 31 5 L36 14 Q40 15 40 19 L40 22 L0 22 L0 19 Q0 15 4 14 Z" />
    <rect class="win" x="11" y="6" width="8" height="7" rx="1" /><rect class="win" x="21" y="6" width="8" height="7" rx="1" />
    <circle cx="9" cy="22" r="4.5" /><circle cx="31" cy="22" r="4.5" /></g>`;
}

function Corner({ i, g, sq }) {
  const name = squareName(i);
  const cls = `corner corner-${sq.kind}`;
  const { lines } = fit(name, g.w - 20, 20, 3, 14);
  const mid = g.y + g.h / 2 - ((lines.length - 1) * 22) / 2 + 6;
  const glyph = { start: '➜', jail: '▦', go_to_jail: '⚑', corner_20: '★' }[sq.kind] || '';
  return html`<g class=${cls}>
    <rect class="sq-bg" x=${g.x} y=${g.y} width=${g.w} height=${g.h} />
    ${sq.kind === 'dealership' && html`<${Car} x=${cx} y=${box.y + box.h / 2 + (horizontal ? 2 : 4)} />`}
    ${glyph && html`<text class="glyph" x=${g.x + g.w / 2} y=${g.y + 42} font-size="30" text-anchor="middle">${glyph}</text>`}
    <${Lines} lines=${lines} x=${g.x + g.w / 2} y=${mid + 14} size=${20} cls="sq-name corner-name" />
  </g>`;
}

function Cell({ i, sq, view, me, picking, highlight, labels }) {
  const g = geometry(i);
  const onClick = () => setUi({ square: i });
  if (g.side === 'corner') {
    return html`<g class=${`cell ${picking ? 'pickable' : ''} ${highlight ? 'hl' : ''}`} data-square=${i} onClick=${onClick}>
      <g aria-hidden="true"><${Corner} i=${i} g=${g} sq=${sq} /></g><${Hit} i=${i} g=${g} onClick=${onClick} /></g>`;
  }
  const isStreet = sq.kind === 'street';
  const band = isStreet ? bandRect(g) : null;
  const box = textBox(g, isStreet);
  const horizontal = g.side === 'left' || g.side === 'right';
  const name = squareName(i);
  const sub = squareSubname(i);
  const { lines, size } = fit(name, box.w - (horizontal ? 22 : 8), horizontal ? 15 : 13, sub ? 2 : 3);
  // Keep clear of the owner's stripe on the outer edge: below it on the top row, beside it on the sides.
  const cx = box.x + box.w / 2 + (g.side === 'left' ? 8 : g.side === 'right' ? -8 : 0);
  const top = box.y + (horizontal ? 20 : g.side === 'top' ? 32 : 22);
  const owner = view && view.owner;
  const oRect = owner !== null && owner !== undefined ? ownerRect(g) : null;
  const priceText = sq.price ? money(sq.price) : sq.tax ? money(sq.tax) : '';
  const glyph = sq.kind === 'event' ? '?' : sq.kind === 'utility' ? 'ϟ' : sq.kind === 'tax' ? '%' : '';
  const mine = owner === me && me !== null && me !== undefined;
  const glyphY = sq.kind === 'utility' ? box.y + box.h - (horizontal ? 12 : 34) : box.y + box.h / 2 + (horizontal ? 12 : 14);
  const glyphSize = sq.kind === 'utility' ? 22 : horizontal ? 30 : 34;
  return html`<g class=${`cell kind-${sq.kind} ${picking ? 'pickable' : ''} ${highlight ? 'hl' : ''} ${mine ? 'mine' : ''}`}
      data-square=${i} onClick=${onClick}><g aria-hidden="true">
    <rect class="sq-bg" x=${g.x} y=${g.y} width=${g.w} height=${g.h}
      style=${oRect ? `fill: color-mix(in srgb, ${seatColor(owner)} 30%, #fbf8ef)` : ''} />
    <title>${hoverText(i, sq, view)}</title>
    ${band && html`<rect class="band" x=${band.x} y=${band.y} width=${band.w} height=${band.h} fill=${GROUP_COLORS[sq.group] || '#999'} />`}
    ${band && html`<${Levels} band=${band} level=${view ? view.level : 0} vertical=${horizontal} marked=${cardHolders(i).length > 0 || !!(view && view.murabaha)} />`}
    ${glyph && html`<text class=${`glyph ${sq.kind === 'utility' ? 'glyph-small' : ''}`} x=${sq.kind === 'utility' && horizontal ? cx - 36 : cx} y=${glyphY} font-size=${glyphSize} text-anchor="middle">${glyph}</text>`}
    <${Lines} lines=${lines} x=${cx} y=${top} size=${size} cls="sq-name" />
    ${sub && html`<text class="sq-sub" x=${cx} y=${top + lines.length * size * 1.12 + 2} font-size="12" text-anchor="middle">${sub}</text>`}
    ${priceText && html`<text class="sq-price" x=${cx} y=${box.y + box.h - (horizontal ? 8 : 14)} font-size="13" text-anchor="middle">${priceText}</text>`}
    ${oRect && html`<rect class="owner" x=${oRect.x} y=${oRect.y} width=${oRect.w} height=${oRect.h} fill=${seatColor(owner)} />
      <rect class="owner-line" x=${g.x + 3} y=${g.y + 3} width=${g.w - 6} height=${g.h - 6} stroke=${seatColor(owner)}
        stroke-dasharray=${OWNER_DASH[owner % OWNER_DASH.length]} />
      <${OwnerMark} g=${g} rect=${oRect} label=${labels[owner] || ''} />`}
    ${view && view.rent && !view.mortgaged && html`<${RentTag} g=${g} rect=${oRect} rent=${view.rent} />`}
    ${view && view.mortgaged && html`<g class="mortgaged">
      <rect x=${g.x} y=${g.y} width=${g.w} height=${g.h} fill="url(#hatch)" />
      <rect class="mortgage-tag" x=${cx - 22} y=${box.y + box.h / 2 - 12} width="44" height="22" rx="3" />
      <text x=${cx} y=${box.y + box.h / 2 + 4} font-size="13" text-anchor="middle">${view.mortgage_rounds_left !== undefined ? `M·${view.mortgage_rounds_left}` : 'M'}</text>
      <title>${t('game.mortgaged')}</title></g>`}
    ${view && view.murabaha && html`<${MurabahaMark} g=${g} band=${band} />`}
    <${CardMarks} i=${i} g=${g} band=${band} />
  </g><${Hit} i=${i} g=${g} onClick=${onClick} /></g>`;
}

/** The owner's initials at the end of the owner's stripe: ownership told without colour. */
function OwnerMark({ g, rect, label }) {
  const vertical = g.side === 'left' || g.side === 'right';
  const x = vertical ? rect.x + rect.w / 2 : rect.x + 3;
  const y = vertical ? (g.side === 'left' ? rect.y + rect.h - 4 : rect.y + 13) : rect.y + rect.h / 2 + 4;
  return html`<text class="owner-mark" x=${x} y=${y} font-size="10.5" fill="var(--seat-ink)"
    text-anchor=${vertical ? 'middle' : 'start'}>${label}</text>`;
}

/** The square's current rent, written in the owner's stripe (the server adds it to owned squares). */
function RentTag({ g, rect, rent }) {
  if (!rect) return null;
  const vertical = g.side === 'left' || g.side === 'right';
  const x = rect.x + rect.w / 2;
  const y = rect.y + rect.h / 2;
  return html`<text class="rent-tag" x=${x} y=${y + 4.5} font-size="12.5" text-anchor="middle"
    transform=${vertical ? `rotate(${g.side === 'left' ? 90 : -90} ${x} ${y})` : ''}>${money(rent)}</text>`;
}

/** What hovering (or a long press on) a square says: its name, owner and current rent. */
function hoverText(i, sq, view) {
  const parts = [squareName(i)];
  if (view && view.owner !== null && view.owner !== undefined) {
    parts.push(`${t('square.owner')}: ${playerName(view.owner)}`);
    if (view.mortgaged) parts.push(t('game.mortgaged'));
    else if (view.rent) parts.push(t('square.rent_now', { amount: money(view.rent) }));
  }
  if (sq.kind === 'utility' && state.board) parts.push(t('square.rent_dice', { a: state.board.utility_multipliers[0], b: state.board.utility_multipliers[1] }));
  return parts.join('\n');
}

/** The letters on a token: a person's initial (two letters when two people share one), a bot's number. */
export function tokenLabels(players) {
  const initial = (p) => (p.name || '?').trim().slice(0, 1).toUpperCase();
  const bot = (p) => /^Bot (\d+)/.exec(p.name || '');
  const counts = {};
  for (const p of players) if (!bot(p)) counts[initial(p)] = (counts[initial(p)] || 0) + 1;
  const out = {};
  for (const p of players) {
    const b = bot(p);
    if (b) out[p.seat] = `B${b[1]}`;
    else out[p.seat] = counts[initial(p)] > 1 ? (p.name || '?').trim().slice(0, 2) : initial(p);
  }
  return out;
}

export const TOKEN_R = 14;

/**
 * Where the k-th token on a square stands. Tokens keep clear of the square's name: on the short squares
 * they sit in a row just above the price, on the side squares they flank the price, on the corners they
 * line up along the outer edge (prisoners in the jail's cell at the top right).
 */
export function tokenSpot(square, k, inJail) {
  const g = geometry(square);
  if (g.side === 'corner') {
    if (square === 10 && inJail) {
      return { x: g.x + [116, 144, 116, 144, 116, 144][k % 6], y: g.y + [20, 20, 48, 48, 76, 76][k % 6] };
    }
    const dx = [-60, -30, 0, 30, 60, 0][k % 6];
    return { x: g.x + g.w / 2 + dx, y: g.y + g.h - (k === 5 ? 48 : 18) };
  }
  const horizontal = g.side === 'left' || g.side === 'right';
  const box = textBox(g, true);
  const cx = box.x + box.w / 2;
  if (horizontal) {
    // Beside the price (up to about 50 units wide, centred), two on each side; two more above them.
    const dx = [-46, 46, -46, 46, -18, 18][k % 6];
    const y = box.y + box.h - 16 - (k >= 2 ? 29 : 0);
    return { x: cx + dx, y };
  }
  // Short squares: a row of three just above the price, a second row above it.
  const row = box.y + box.h - 42;
  return { x: cx + [-25, 0, 25, -25, 0, 25][k % 6], y: row - (k >= 3 ? 29 : 0) };
}

function Tokens({ game }) {
  const bySquare = {};
  const out = [];
  const labels = tokenLabels(game.players);
  for (const p of game.players) {
    if (p.out) continue;
    const pos = state.tokens[p.seat] ?? p.position;
    const key = `${pos}-${p.in_jail && pos === 10}`;
    const k = (bySquare[key] = (bySquare[key] ?? -1) + 1);
    const { x, y } = tokenSpot(pos, k, p.in_jail && pos === 10);
    const active = game.turn === p.seat && !game.over;
    out.push(html`<g class=${`token ${active ? 'active' : ''}`} data-seat=${p.seat} transform=${`translate(${x} ${y})`}>
      <circle r=${TOKEN_R} fill=${seatColor(p.seat)} />
      <text y="4.5" font-size=${labels[p.seat].length > 1 ? 11 : 13} text-anchor="middle">${labels[p.seat]}</text>
    </g>`);
  }
  return out;
}

/** The newest roll: from its event as soon as it arrives (the snapshot that carries it comes a little later). */
function shownDice(game) {
  const ev = state.lastDice;
  return ev && ev.seq > state.seq && ev.dice ? ev.dice : game.dice;
}

function Center({ game }) {
  const mid = SIZE / 2;
  const actor = (game.pending || []).find((p) => p.decision !== 'trade');
  const deadline = actor && state.deadlines.find((d) => d.kind !== 'trade' && d.seat === actor.seat);
  const rules = game.rules || {};
  return html`<g class="center">
    <text class="logo" x=${mid} y=${C + 92} text-anchor="middle" font-size="64">opolyx</text>
    <text class="center-mode" x=${mid} y=${C + 130} text-anchor="middle" font-size="24">
      ${t(`mode.${game.mode}.name`)} · ${t('game.round_of', { round: game.round, limit: rules.round_limit })}
    </text>
    ${game.rent_tax_percent > 0 && html`<text class="center-tax" x=${mid} y=${C + 160} text-anchor="middle" font-size="20">${t('game.rent_tax', { percent: game.rent_tax_percent })}</text>`}
    <g transform=${`translate(${mid} ${mid - 10})`}><${Dice} key=${state.lastDice ? state.lastDice.seq : 0} dice=${shownDice(game)} event=${state.lastDice}
      rolling=${!!state.lastDice && state.lastDice.seq >= state.seq} /></g>
    ${!game.over && actor && html`<g class="center-turn">
      <circle cx=${mid - 150} cy=${mid + 110} r="14" fill=${seatColor(actor.seat)} />
      <text x=${mid - 126} y=${mid + 118} font-size="26">${t(`decision.${actor.decision}`, { player: playerName(actor.seat) })}</text>
      ${deadline && html`<${Countdown} deadline=${deadline} svg=${true} x=${mid} y=${mid + 170} />`}
    </g>`}
    ${state.board && state.board.disclaimer && html`<text class="disclaimer" x=${mid} y=${SIZE - C - 22} text-anchor="middle" font-size="17">${t('board.disclaimer')}</text>`}
  </g>`;
}

export function Board() {
  const game = state.game;
  const board = state.board;
  if (!game || !board) return html`<div class="board-wrap"><div class="board-loading">${t('conn.loading')}</div></div>`;
  const me = state.you ? state.you.seat : null;
  const picking = state.legal.some((a) => a.type === 'teleport');
  const hl = new Set();
  if (game.offer !== null && game.offer !== undefined) hl.add(game.offer);
  if (game.auction) hl.add(game.auction.square);
  if (game.debt && game.debt.square !== null && game.debt.square !== undefined) hl.add(game.debt.square);
  if (state.ui.square !== undefined && state.ui.square !== null) hl.add(state.ui.square);
  const preview = picking || !state.legal.some((a) => a.type === 'choose_bus') ? null : state.ui.preview;
  const labels = tokenLabels(game.players);
  return html`<div class="board-wrap">
    <svg class="board" viewBox=${`-4 -4 ${SIZE + 8} ${SIZE + 8}`} role="group" aria-label=${t('game.board')}
        aria-describedby="board-keys" preserveAspectRatio="xMidYMid meet">
      <defs>
        <pattern id="hatch" width="12" height="12" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
          <rect width="12" height="12" fill="rgba(90,90,90,0.25)" /><line x1="0" y1="0" x2="0" y2="12" stroke="rgba(60,60,60,0.45)" stroke-width="5" />
        </pattern>
      </defs>
      <rect class="board-bg" x="0" y="0" width=${SIZE} height=${SIZE} />
      <rect class="board-center" x=${C} y=${C} width=${SIZE - 2 * C} height=${SIZE - 2 * C} />
      ${board.squares.map((sq) => html`<${Cell} key=${sq.index} i=${sq.index} sq=${sq} view=${game.squares[sq.index]}
        me=${me} picking=${picking} highlight=${hl.has(sq.index) || preview === sq.index} labels=${labels} />`)}
      <g aria-hidden="true"><${Center} game=${game} /><${Tokens} game=${game} /></g>
    </svg>
    <p id="board-keys" class="sr-only">${t('a11y.board_keys')}</p>
  </div>`;
}
