// The game log: each structured event rendered in the viewer's language from the catalogs.
import { useLayoutEffect, useRef } from 'preact/hooks';
import { html } from './html.js';
import { t } from './i18n.js';
import { cardName, modeName, money, playerName, seatColor, squareName } from './names.js';
import { state } from './store.js';

const P = (s) => playerName(s);
const S = (i) => squareName(i);
const M = (n) => money(n);

function sideText(side) {
  const parts = [];
  if (side.cash) parts.push(M(side.cash));
  for (const i of side.squares) parts.push(S(i));
  return parts.length ? parts.join(', ') : t('trade.nothing');
}

function creditorsText(list) {
  if (list && list.length === 1) return P(list[0].seat);
  return (list || []).map((c) => `${P(c.seat)} ${M(c.amount)}`).join(', ');
}

// Event type → [catalog key, params]. Every event the engine emits has an entry (tests/web check the keys).
const RENDER = {
  game_started: (e) => ['log.game_started', { mode: modeName(e.mode), player: P(e.first) }],
  turn_started: (e) => ['log.turn_started', { player: P(e.seat) }],
  round_started: (e) => ['log.round_started', { round: e.round }],
  dice_rolled: (e) => [e.jail ? 'log.dice_rolled.jail' : e.doubles ? 'log.dice_rolled.doubles' : 'log.dice_rolled', {
    player: P(e.seat),
    dice: e.dice.slice(0, 2).join(' + ') + (e.third !== null && e.third !== undefined ? ` + ${typeof e.third === 'number' ? e.third : t(`dice.${e.third}`)}` : ''),
  }],
  moved: (e) => ['log.moved', { player: P(e.seat), square: S(e.to) }],
  roll_again: (e) => ['log.roll_again', { player: P(e.seat) }],
  triples_rolled: (e) => ['log.triples_rolled', { player: P(e.seat) }],
  third_doubles: (e) => ['log.third_doubles', { player: P(e.seat) }],
  x_jump: (e) => ['log.x_jump', { player: P(e.seat), square: S(e.square) }],
  bus_chosen: (e) => ['log.bus_chosen', { player: P(e.seat), n: e.steps }],
  teleported: (e) => ['log.teleported', { player: P(e.seat), square: S(e.to) }],
  cash_received: (e) => [`log.cash_received.${e.reason}`, { player: P(e.seat), amount: M(e.amount), card: e.card ? cardName(e.card) : '' }],
  jailed: (e) => [`log.jailed.${e.reason}`, { player: P(e.seat) }],
  released: (e) => [`log.released.${e.reason}`, { player: P(e.seat) }],
  bail_paid: (e) => ['log.bail_paid', { player: P(e.seat), amount: M(e.amount) }],
  jail_roll_failed: (e) => ['log.jail_roll_failed', { player: P(e.seat), tries: e.tries }],
  purchase_offered: (e) => ['log.purchase_offered', { player: P(e.seat), square: S(e.square), price: M(e.price) }],
  purchase_declined: (e) => [e.auto ? 'log.purchase_declined.auto' : 'log.purchase_declined', { player: P(e.seat), square: S(e.square) }],
  company_bought: (e) => ['log.company_bought', { player: P(e.seat), square: S(e.square), price: M(e.price) }],
  murabaha_bought: (e) => ['log.murabaha_bought', { player: P(e.seat), square: S(e.square), amount: M(e.amount), round: e.due_round }],
  murabaha_paid: (e) => ['log.murabaha_paid', { player: P(e.seat), square: S(e.square), amount: M(e.amount) }],
  auction_started: (e) => ['log.auction_started', { square: S(e.square), amount: M(e.minimum) }],
  auction_bid: (e) => ['log.auction_bid', { player: P(e.seat), amount: M(e.amount) }],
  auction_passed: (e) => [`log.auction_passed.${e.reason}`, { player: P(e.seat) }],
  auction_won: (e) => ['log.auction_won', { player: P(e.seat), square: S(e.square), amount: M(e.amount) }],
  auction_unsold: (e) => ['log.auction_unsold', { square: S(e.square) }],
  rent_due: (e) => [e.card_bonus ? 'log.rent_due_card' : 'log.rent_due', { player: P(e.seat), owner: P(e.owner), square: S(e.square), amount: M(e.amount), bonus: e.card_bonus }],
  rent_waived: (e) => [`log.rent_waived.${e.reason}`, { player: P(e.seat), owner: P(e.owner), square: S(e.square) }],
  pay_step_started: (e) => [`log.pay_step_started.${e.reason}`, {
    player: P(e.debtor), amount: M(e.amount), to: creditorsText(e.creditors), square: e.square !== null && e.square !== undefined ? S(e.square) : '',
  }],
  pay_step_timed_out: (e) => ['log.pay_step_timed_out', { player: P(e.seat) }],
  debt_paid: (e) => [e.auto ? 'log.debt_paid.auto' : 'log.debt_paid', { player: P(e.seat), amount: M(e.amount), to: creditorsText(e.creditors) }],
  card_drawn: (e) => ['log.card_drawn', { player: P(e.seat), card: cardName(e.card) }],
  red_envelope: (e) => ['log.red_envelope', {
    player: P(e.seat), shares: Object.entries(e.shares || {}).map(([s, a]) => `${P(Number(s))} ${M(a)}`).join(', '),
  }],
  god_arrived: (e) => [`log.god_arrived.${e.god}`, { player: P(e.seat), round: e.until_round }],
  god_left: (e) => [`log.god_left.${e.god}`, { player: P(e.seat) }],
  jackpot_offered: (e) => ['log.jackpot_offered', { player: P(e.seat), amount: M(e.stake) }],
  jackpot_played: (e) => [e.won ? 'log.jackpot_played.won' : 'log.jackpot_played', {
    player: P(e.seat), numbers: e.numbers.join(', '), die: e.die, amount: M(e.won ? e.payout : e.stake),
  }],
  jackpot_unaffordable: (e) => ['log.jackpot_unaffordable', { player: P(e.seat), amount: M(e.stake) }],
  teleport_skipped: (e) => ['log.teleport_skipped', { player: P(e.seat) }],
  jackpot_declined: (e) => ['log.jackpot_declined', { player: P(e.seat) }],
  rested: (e) => ['log.rested', { player: P(e.seat) }],
  built: (e) => ['log.built', { player: P(e.seat), square: S(e.square), level: e.level, amount: M(e.cost) }],
  sold: (e) => [e.auto ? 'log.sold.auto' : 'log.sold', { player: P(e.seat), square: S(e.square), level: e.level, amount: M(e.refund) }],
  mortgaged: (e) => [e.auto ? 'log.mortgaged.auto' : 'log.mortgaged', { player: P(e.seat), square: S(e.square), amount: M(e.value) }],
  redeemed: (e) => ['log.redeemed', { player: P(e.seat), square: S(e.square), amount: M(e.cost) }],
  mortgage_ticked: (e) => ['log.mortgage_ticked', { player: P(e.seat), square: S(e.square), n: e.rounds_left }],
  mortgage_expired: (e) => ['log.mortgage_expired', { player: P(e.seat), square: S(e.square) }],
  trade_proposed: (e) => ['log.trade_proposed', { from: P(e.from), to: P(e.to), give: sideText(e.give), take: sideText(e.take) }],
  trade_accepted: (e) => ['log.trade_accepted', { from: P(e.from), to: P(e.to), give: sideText(e.give), take: sideText(e.take) }],
  trade_declined: (e) => ['log.trade_declined', { player: P(e.seat) }],
  trade_cancelled: (e) => ['log.trade_cancelled', { player: P(e.seat) }],
  trade_lapsed: (e) => [`log.trade_lapsed.${e.reason}`, {}],
  companies_inherited: (e) => ['log.companies_inherited', { player: P(e.seat), from: P(e["from"]), squares: e.squares.map(S).join(', ') }],
  player_out: (e) => [`log.player_out.${e.reason}`, { player: P(e.seat) }],
  // A server notice, not an engine event: a bot plays on for a person who left (rooms created that way).
  bot_took_over: (e) => ['log.bot_took_over', {
    player: e.name || P(e.seat), bot: t('player.bot_name', { n: e.bot.number, strength: t(`strength.${e.bot.strength}`) }),
  }],
  // A server notice: a player of this finished game opened the rematch room.
  rematch: (e) => ['log.rematch', { player: P(e.seat) }],
  // Server notices of fair dice (docs/security.md): the seed's commitment first, the seed at the end.
  seed_committed: (e) => ['log.seed_committed', { short: e.commitment.slice(0, 12) }],
  seed_revealed: (e) => ['log.seed_revealed', { seed: e.seed }],
  turn_timed_out: (e) => ['log.turn_timed_out', { player: P(e.seat), missed: e.missed }],
  game_over: (e) => [`log.game_over.${e.reason}`, { player: P(e.winner), round: e.round }],
};

export function describe(ev) {
  const render = RENDER[ev.type];
  if (!render) {
    // A newer engine may emit something this client does not know yet: say so in words, never raw JSON.
    return t('log.unknown', { type: ev.type });
  }
  const [key, params] = render(ev);
  const text = t(key, params);
  return text === key ? t(`log.${ev.type}`, params) : text;
}

export const QUIET = new Set(['turn_started', 'moved', 'purchase_offered', 'pay_step_started', 'roll_again']);

/** Whether a scrolled list sits at (or within a line of) its bottom: then it keeps following new lines. */
function atBottom(el) {
  return el.scrollHeight - el.scrollTop - el.clientHeight < 40;
}

export function GameLog() {
  const ref = useRef(null);
  const follow = useRef(true);
  const entries = state.log;
  const last = entries.length ? entries[entries.length - 1].id : 0;
  // Follow the newest entry (keyed by its id: the log is capped, so its length stops changing late in a
  // game), unless the reader scrolled up to read back; scrolling to the bottom again resumes following.
  useLayoutEffect(() => {
    const el = ref.current;
    if (el && follow.current) el.scrollTop = el.scrollHeight;
  }, [last, state.lang]);
  return html`<ol class="game-log" ref=${ref} data-testid="log" tabindex="0" aria-label=${t('tab.log')} onScroll=${(e) => { follow.current = atBottom(e.currentTarget); }}>
    ${entries.length === 0 && html`<li class="muted">${t('log.empty')}</li>`}
    ${entries.map(({ id, ev }) => {
      const seat = ev.seat ?? ev.debtor ?? ev.from;
      return html`<li key=${id} class=${`ev ev-${ev.type} ${QUIET.has(ev.type) ? 'quiet' : ''}`}>
        ${typeof seat === 'number' && html`<i class="dot" style=${`background:${seatColor(seat)}`}></i>`}${describe(ev)}</li>`;
    })}
  </ol>`;
}

export { RENDER };
