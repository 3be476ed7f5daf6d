// E-mail sign-in: ask for a link; opening the mailed link (#/signin/<secret>) signs this browser in.
// A link asked for in another browser is not used before the person saw whose account it opens and chose.
import { useState } from 'preact/hooks';
import { askLink } from '../account_api.js';
import { confirmSignIn } from '../account_flow.js';
import { changeLanguage, go, showError, toast } from '../controller.js';
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

function ConfirmSignIn({ asked }) {
  const answer = (merge) => confirmSignIn(merge, { go, changeLanguage, toast, showError });
  const who = asked.nickname ? t('signin.confirm_who', { name: asked.nickname, email: asked.email })
    : t('signin.confirm_new', { email: asked.email });
  return html`<section class="card signin" data-testid="signin-confirm">
    <h2>${t('signin.confirm_title')}</h2>
    <p data-testid="signin-whose">${who}</p>
    <p class="muted">${t('signin.confirm_warn')}</p>
    <div class="row">
      <button data-action="signin-cancel" class="primary" onClick=${() => answer(null)}>${t('signin.confirm_cancel')}</button>
      ${asked.guest_moves ? html`<button data-action="signin-merge" onClick=${() => answer(true)}>${t('signin.confirm_merge')}</button>` : null}
      <button data-action="signin-plain" onClick=${() => answer(false)}>${t(asked.guest_moves ? 'signin.confirm_plain' : 'signin.confirm_go')}</button>
    </div>
  </section>`;
}

export function SignInScreen() {
  const asked = state.ui.signinConfirm;
  return html`<main class="account-screen signin-screen">
    ${asked ? html`<${ConfirmSignIn} asked=${asked} />`
      : state.user && !state.user.guest ? html`<p>${t('signin.already', { name: state.user.nickname })}</p>`
      : html`<${SignInCard} />`}
  </main>`;
}
