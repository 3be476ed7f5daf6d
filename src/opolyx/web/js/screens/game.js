// The game: board, action bar, players, and tabs for log, trades and chat.
import { ActionBar } from '../actions.js';
import { Board } from '../board.js';
import { Chat } from '../chat.js';
import { markChatRead, unreadChat } from '../chat_unread.js';
import { html } from '../html.js';
import { HouseChanges } from '../house_rules.js';
import { t } from '../i18n.js';
import { GameLog } from '../log.js';
import { GameOver } from '../endscreen.js';
import { AnswerNotice, OfferPanel } from '../offers.js';
import { AutopayPrompt } from '../autopay.js';
import { MoneyStrip, PlayerPanels, SquareDetail } from '../players.js';
import { setUi, state } from '../store.js';
import { TradeBuilder, TradeList } from '../trade.js';

const TABS = ['log', 'trades', 'chat', 'players'];

let boardEl = null;
const boardRef = (el) => { boardEl = el; };

/** The phone's zoomed strip: the board at reading size, scrolled so the token on turn is in the middle
 * (the player scrolls or pinches from there; a tap on a square opens its card either way). */
function toggleZoom() {
  const zoom = !state.ui.zoom;
  setUi({ zoom });
  if (!zoom) return;
  requestAnimationFrame(() => requestAnimationFrame(() => {
    const game = state.game;
    const seat = state.you && state.you.seat !== null && state.you.seat !== undefined && !state.you.spectator ? state.you.seat : game && game.turn;
    const token = boardEl && boardEl.querySelector(`.token[data-seat="${seat}"]`);
    if (!token) return;
    const box = boardEl.getBoundingClientRect();
    const tok = token.getBoundingClientRect();
    boardEl.scrollBy({ left: tok.left + tok.width / 2 - (box.left + box.width / 2), top: tok.top + tok.height / 2 - (box.top + box.height / 2) });
  }));
}

/** Arrow keys, Home and End move between the tabs that are shown (the Players tab is hidden on a desktop,
 * where the panels are always there) and select the one they land on. */
function onTabKey(e) {
  const shown = [...document.querySelectorAll('[role=tab]')].filter((b) => b.getClientRects().length > 0);
  const at = shown.indexOf(e.currentTarget);
  let next = null;
  if (e.key === 'ArrowRight') next = shown[(at + 1) % shown.length];
  else if (e.key === 'ArrowLeft') next = shown[(at - 1 + shown.length) % shown.length];
  else if (e.key === 'Home') next = shown[0];
  else if (e.key === 'End') next = shown[shown.length - 1];
  if (!next) return;
  e.preventDefault();
  setUi({ tab: next.dataset.tab });
  next.focus();
}

export function GameScreen() {
  const game = state.game;
  const tab = state.ui.tab || 'log';
  const me = state.you ? state.you.seat : null;
  const incoming = game ? game.trades.filter((x) => x.to === me).length : 0;
  const zoomed = !!state.ui.zoom;
  if (tab === 'chat') markChatRead();
  const unread = tab === 'chat' ? 0 : unreadChat();
  return html`<main class="game-screen">
    <h1 class="sr-only">${game ? t('a11y.game_heading', { mode: t(`mode.${game.mode}.name`), round: game.round }) : t('a11y.title.game')}</h1>
    <${MoneyStrip} />
    <section class=${`game-board ${zoomed ? 'zoomed' : ''}`} aria-labelledby="board-heading">
      <h2 id="board-heading" class="sr-only">${t('game.board')}</h2>
      <div class="board-scroll" ref=${boardRef}><${Board} /></div>
      <button class="zoom-toggle" data-action="zoom" aria-pressed=${zoomed} onClick=${toggleZoom}>${zoomed ? t('board.zoom_out') : t('board.zoom')}</button>
    </section>
    <div class="game-side">
      <${OfferPanel} />
      <${AnswerNotice} />
      <${AutopayPrompt} />
      <${ActionBar} />
      <section class="side-players" aria-labelledby="players-heading"><h2 id="players-heading" class="sr-only">${t('tab.players')}</h2><${PlayerPanels} /></section>
      ${state.room && html`<${HouseChanges} changes=${state.room.house_changes} compact=${true} />`}
      <div class="tabs" role="tablist" aria-label=${t('a11y.tabs')}>${TABS.map((k) => html`<button role="tab" class=${`tab tab-${k} ${k === tab ? 'on' : ''}`}
        id=${`tab-${k}`} aria-selected=${k === tab ? 'true' : 'false'} aria-controls="tab-panel" tabindex=${k === tab ? 0 : -1}
        data-tab=${k} onClick=${() => setUi({ tab: k })} onKeyDown=${onTabKey}>${t(`tab.${k}`)}${k === 'trades' && incoming ? html` <span class="pill">${incoming}</span>` : ''}
        ${k === 'trades' && game && game.trades.length && !incoming ? html` <span class="pill muted">${game.trades.length}</span>` : ''}
        ${k === 'chat' && unread ? html` <span class="pill" data-testid="chat-unread" aria-label=${t('feel.chat_unread', { n: unread })}>${unread}</span>` : ''}</button>`)}</div>
      <div class="tab-body" role="tabpanel" id="tab-panel" aria-labelledby=${`tab-${tab}`}>
        ${tab === 'log' && html`<${GameLog} />`}
        ${tab === 'trades' && html`<${TradeList} />`}
        ${tab === 'chat' && html`<${Chat} />`}
        ${tab === 'players' && html`<div class="tab-players"><${PlayerPanels} /></div>`}
      </div>
    </div>
    ${state.ui.trade && state.you && !state.you.spectator && html`<${TradeBuilder} />`}
    <${SquareDetail} />
    <${GameOver} />
  </main>`;
}
