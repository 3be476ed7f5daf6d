// E-mail sign-in: ask for a link; opening the mailed link (#/signin/<secret>) signs this browser in.
import { useState } from 'preact/hooks';
import { askLink } from '../account_api.js';
import { showError } from '../controller.js';
import { html } from '../html.js';
import { t } from '../i18n.js';
import { state } from '../store.js';

export function SignInCard() {
  const [email, setEmail] = useState('');
  const [sent, setSent] = useState(false);
  const submit = async (e) => {
    e.preventDefault();
    try {
      await askLink(email.trim(), state.lang);
      setSent(true);
    } catch (err) { showError(err); }
  };
  return html`<section class="card signin" data-testid="signin">
    <h2>${t('signin.title')}</h2>
    <p class="muted">${t('signin.why')}</p>
    ${sent ? html`<p class="signin-sent" data-testid="link-sent">${t('signin.sent', { email })}</p>`
      : html`<form class="row" onSubmit=${submit}>
        <input type="email" name="email" required maxlength="320" autocomplete="email" value=${email}
          placeholder=${t('signin.email')} aria-label=${t('signin.email')} onInput=${(e) => setEmail(e.target.value)} />
        <button class="primary" type="submit" data-action="send-link">${t('signin.send')}</button>
      </form>`}
  </section>`;
}

export function SignInScreen() {
  return html`<main class="account-screen signin-screen">
    ${state.user && !state.user.guest ? html`<p>${t('signin.already', { name: state.user.nickname })}</p>`
      : html`<${SignInCard} />`}
  </main>`;
}
