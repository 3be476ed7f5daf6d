// The game: board, action bar, players, and tabs for log, trades and chat.
import { ActionBar } from '../actions.js';
import { Board } from '../board.js';
import { Chat } from '../chat.js';
import { html } from '../html.js';
import { t } from '../i18n.js';
import { GameLog } from '../log.js';
import { GameOver, PlayerPanels, SquareDetail } from '../players.js';
import { setUi, state } from '../store.js';
import { TradeBuilder, TradeList } from '../trade.js';

const TABS = ['log', 'trades', 'chat', 'players'];

export function GameScreen() {
  const game = state.game;
  const tab = state.ui.tab || 'log';
  const me = state.you ? state.you.seat : null;
  const incoming = game ? game.trades.filter((x) => x.to === me).length : 0;
  return html`<main class="game-screen">
    <div class="game-board"><${Board} /></div>
    <div class="game-side">
      <${ActionBar} />
      <div class="side-players"><${PlayerPanels} /></div>
      <nav class="tabs" role="tablist">${TABS.map((k) => html`<button role="tab" class=${`tab tab-${k} ${k === tab ? 'on' : ''}`}
        data-tab=${k} onClick=${() => setUi({ tab: k })}>${t(`tab.${k}`)}${k === 'trades' && incoming ? html` <span class="pill">${incoming}</span>` : ''}
        ${k === 'trades' && game && game.trades.length && !incoming ? html` <span class="pill muted">${game.trades.length}</span>` : ''}</button>`)}</nav>
      <div class="tab-body">
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
