// The app shell: header (brand, language, connection, who you are) and the current screen.
import { changeLanguage, go } from './controller.js';
import { html } from './html.js';
import { LANGUAGES, t } from './i18n.js';
import { GameScreen } from './game_screen.js';
import { LobbyScreen } from './screens/lobby.js';
import { lazyScreen } from './lazy_screen.js';
import { RoomScreen } from './screens/room.js';
import { SignInScreen } from './screens/signin.js';
import { StartScreen } from './screens/start.js';
import { alertText, askNotify } from './alerts.js';
import { setPref } from './prefs.js';
import { play } from './sounds.js';
import { useStore } from './store.js';
import { startA11y } from './a11y.js';
import { Tutorial, openTutorial } from './tutorial.js';

/** A speaker, with waves when sound is on and a cross when muted (drawn, so every system shows it). */
function SpeakerIcon({ on }) {
  return html`<svg class="speaker" viewBox="0 0 24 24" width="18" height="18" aria-hidden="true">
    <path d="M3 9h4l5-4v14l-5-4H3z" />
    ${on ? html`<path class="wave" d="M15.5 8.5a5 5 0 0 1 0 7M18 6a8.5 8.5 0 0 1 0 12" />`
      : html`<path class="wave" d="M16 9l6 6M22 9l-6 6" />`}</svg>`;
}

/** The account links' icons, drawn (like the speaker) so that no system shows an empty emoji box. */
function NavIcon({ kind }) {
  return html`<svg class="nav-icon" viewBox="0 0 24 24" width="18" height="18" aria-hidden="true">
    ${kind === 'leaderboard'
      ? html`<path d="M7 4h10v4a5 5 0 0 1-10 0zM7 6H4a3 3 0 0 0 3 4M17 6h3a3 3 0 0 1-3 4M12 13v4M8 20h8M9 17h6" />`
      : html`<path d="M4 20h16M5 16l4-5 4 3 6-8M15 6h4v4" />`}</svg>`;
}

/** The account button a phone keeps in its header (the name is hidden there): profile, sign-in, cards, replays, keys. */
function PersonIcon() {
  return html`<svg class="nav-icon" viewBox="0 0 24 24" width="20" height="20" aria-hidden="true">
    <circle cx="12" cy="8" r="4" fill="none" stroke="currentColor" stroke-width="2" />
    <path d="M4 21c0-4.4 3.6-7 8-7s8 2.6 8 7" fill="none" stroke="currentColor" stroke-width="2" /></svg>`;
}

function Settings({ s }) {
  const toggleSound = () => { setPref('sound', !s.prefs.sound); if (!s.prefs.sound) play('turn'); };
  const toggleNotify = async (e) => setPref('notify', e.target.checked && (await askNotify()));
  return html`<button class="ghost icon sound" data-action="sound" aria-pressed=${s.prefs.sound}
      title=${t(s.prefs.sound ? 'settings.sound_on' : 'settings.sound_off')} aria-label=${t(s.prefs.sound ? 'settings.sound_on' : 'settings.sound_off')}
      onClick=${toggleSound}><${SpeakerIcon} on=${s.prefs.sound} /></button>
    <details class="settings">
      <summary aria-label=${t('settings.title')} title=${t('settings.title')}>⚙</summary>
      <div class="settings-menu">
        <label class="check"><input type="checkbox" name="sound" checked=${s.prefs.sound} onChange=${toggleSound} /> ${t('settings.sound_on')}</label>
        <label class="check"><input type="checkbox" name="notify" checked=${s.prefs.notify} onChange=${toggleNotify} /> ${t('settings.notify')}</label>
        <label class="check"><input type="checkbox" name="autopay" checked=${s.prefs.autopay} onChange=${(e) => setPref('autopay', e.target.checked)} /> ${t('settings.autopay')}</label>
        <label class="check"><input type="checkbox" name="shortcuts" checked=${s.prefs.shortcuts !== false} onChange=${(e) => setPref('shortcuts', e.target.checked)} /> ${t('a11y.shortcuts')}</label>
        <button class="small" data-action="tutorial" onClick=${(e) => { e.target.closest('details').open = false; openTutorial(); }}>${t('feel.tut.open')}</button>
      </div>
    </details>`;
}

function Header({ s }) {
  return html`<header class="top">
    <a class="brand-small" href="#/lobby" onClick=${(e) => { e.preventDefault(); if (s.user) go('lobby'); }}>opolyx</a>
    ${s.screen === 'room' && s.room && html`<span class="crumb">${t(`mode.${s.room.mode}.name`)}</span>`}
    ${s.screen === 'room' && html`<span class=${`conn ${s.conn}`} title=${t(`conn.${s.conn}`)}>${t(`conn.${s.conn}`)}</span>`}
    <span class="grow"></span>
    <nav class="account-nav">
      <a href="#/leaderboard" data-nav="leaderboard" title=${t('nav.leaderboard')}><${NavIcon} kind="leaderboard" /><span class="label"> ${t('nav.leaderboard')}</span></a>
      <a href="#/progression" data-nav="progression" title=${t('nav.progression')}><${NavIcon} kind="progression" /><span class="label"> ${t('nav.progression')}</span></a>
    </nav>
    <${Settings} s=${s} />
    ${s.user && html`<a class="me" href="#/profile" data-nav="profile" title=${t('nav.profile')}>${s.user.nickname}</a>`}
    ${s.user && html`<a class="me-icon" href="#/profile" data-nav="profile-phone" title=${t('nav.profile')} aria-label=${t('feel.account', { name: s.user.nickname })}><${PersonIcon} /></a>`}
    <select class="lang" aria-label=${t('start.language')} data-testid="language" value=${s.lang}
      onChange=${(e) => changeLanguage(e.target.value)}>
      ${LANGUAGES.map((l) => html`<option value=${l}>${t(`language.${l}`)}</option>`)}
    </select>
  </header>`;
}

// The replay viewer loads when first opened (lazy_screen.js).
const ReplayScreen = lazyScreen(() => import('./screens/replay.js'), 'ReplayScreen');
const ProfileScreen = lazyScreen(() => import('./screens/profile.js'), 'ProfileScreen');
const LeaderboardScreen = lazyScreen(() => import('./screens/leaderboard.js'), 'LeaderboardScreen');
const ProgressionScreen = lazyScreen(() => import('./screens/progression.js'), 'ProgressionScreen');
const OperatorScreen = lazyScreen(() => import('./screens/operator.js'), 'OperatorScreen');

const ACCOUNT_SCREENS = {
  profile: ProfileScreen, leaderboard: LeaderboardScreen, progression: ProgressionScreen,
  replay: ReplayScreen, signin: SignInScreen, operator: OperatorScreen,
};

export function App() {
  const s = useStore();
  startA11y();
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
    ${s.alert && html`<div class="toast alert" aria-hidden="true" data-testid="alert">${alertText(s.alert)}</div>`}
    ${s.toast && html`<div class=${`toast ${s.toast.kind}`} role="status">${s.toast.text}</div>`}
    <${Tutorial} />
  </div>`;
}
