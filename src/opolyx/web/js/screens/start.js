// Start: a nickname and a language, then the lobby.
import { useState } from 'preact/hooks';
import { changeLanguage, signIn } from '../controller.js';
import { html } from '../html.js';
import { LANGUAGES, t } from '../i18n.js';
import { state } from '../store.js';

export function StartScreen() {
  const [nick, setNick] = useState((state.user && state.user.nickname) || localStorage.getItem('opolyx.nickname') || '');
  const submit = (e) => {
    e.preventDefault();
    if (nick.trim()) signIn(nick.trim(), state.lang);
  };
  return html`<main class="start-screen">
    <div class="start-card">
      <h1 class="brand">opolyx</h1>
      ${state.farewell && html`<p class="farewell" role="status" data-testid="account-deleted">${t('feel.account_deleted')}</p>`}
      <p class="tagline">${t('start.tagline')}</p>
      <form onSubmit=${submit}>
        <label>${t('start.nickname')}
          <input name="nickname" value=${nick} maxlength="24" autofocus required autocomplete="nickname"
            placeholder=${t('start.nickname_placeholder')} onInput=${(e) => setNick(e.target.value)} /></label>
        <label>${t('start.language')}
          <select name="language" value=${state.lang} onChange=${(e) => changeLanguage(e.target.value, false)}>
            ${LANGUAGES.map((l) => html`<option value=${l}>${t(`language.${l}`)}</option>`)}
          </select></label>
        <button class="primary big" type="submit" data-action="play">${t('start.play')}</button>
      </form>
      <p class="small"><a href="#/signin" data-nav="signin">${t('start.have_account')}</a></p>
      <p class="muted small">${t('start.money_note')}</p>
    </div>
  </main>`;
}
