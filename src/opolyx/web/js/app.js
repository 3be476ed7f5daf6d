// The app shell: header (brand, language, connection, who you are) and the current screen.
import { changeLanguage, go } from './controller.js';
import { html } from './html.js';
import { LANGUAGES, t } from './i18n.js';
import { GameScreen } from './screens/game.js';
import { LeaderboardScreen } from './screens/leaderboard.js';
import { LobbyScreen } from './screens/lobby.js';
import { ProfileScreen } from './screens/profile.js';
import { ProgressionScreen } from './screens/progression.js';
import { ReplayScreen } from './screens/replay.js';
import { RoomScreen } from './screens/room.js';
import { SignInScreen } from './screens/signin.js';
import { StartScreen } from './screens/start.js';
import { useStore } from './store.js';

function Header({ s }) {
  return html`<header class="top">
    <a class="brand-small" href="#/lobby" onClick=${(e) => { e.preventDefault(); if (s.user) go('lobby'); }}>opolyx</a>
    ${s.screen === 'room' && s.room && html`<span class="crumb">${t(`mode.${s.room.mode}.name`)}</span>`}
    ${s.screen === 'room' && html`<span class=${`conn ${s.conn}`} title=${t(`conn.${s.conn}`)}>${t(`conn.${s.conn}`)}</span>`}
    <span class="grow"></span>
    <nav class="account-nav">
      <a href="#/leaderboard" data-nav="leaderboard" title=${t('nav.leaderboard')}><span aria-hidden="true">🏆</span><span class="label"> ${t('nav.leaderboard')}</span></a>
      <a href="#/progression" data-nav="progression" title=${t('nav.progression')}><span aria-hidden="true">📈</span><span class="label"> ${t('nav.progression')}</span></a>
    </nav>
    ${s.user && html`<a class="me" href="#/profile" data-nav="profile" title=${t('nav.profile')}>${s.user.nickname}</a>`}
    <select class="lang" aria-label=${t('start.language')} data-testid="language" value=${s.lang}
      onChange=${(e) => changeLanguage(e.target.value)}>
      ${LANGUAGES.map((l) => html`<option value=${l}>${t(`language.${l}`)}</option>`)}
    </select>
  </header>`;
}

const ACCOUNT_SCREENS = {
  profile: ProfileScreen, leaderboard: LeaderboardScreen, progression: ProgressionScreen,
  replay: ReplayScreen, signin: SignInScreen,
};

export function App() {
  const s = useStore();
  let screen = null;
  if (s.screen === 'start') screen = html`<${StartScreen} />`;
  else if (s.screen === 'lobby') screen = html`<${LobbyScreen} />`;
  else if (ACCOUNT_SCREENS[s.screen]) screen = html`<${ACCOUNT_SCREENS[s.screen]} key=${s.screenArg} />`;
  else if (s.screen === 'room') {
    screen = s.room && s.room.status !== 'waiting' && s.game ? html`<${GameScreen} />` : html`<${RoomScreen} />`;
  } else screen = html`<main class="splash">opolyx</main>`;
  return html`<div class=${`app screen-${s.screen} lang-${s.lang}`}>
    <${Header} s=${s} />
    ${screen}
    ${s.toast && html`<div class=${`toast ${s.toast.kind}`} role="status">${s.toast.text}</div>`}
  </div>`;
}
