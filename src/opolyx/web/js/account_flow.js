// Routes of the account pages (profile, leaderboard, progression, replay, e-mail sign-in).
// The controller routes here and hands in what the sign-in needs of it (navigation, language, toasts),
// so this module does not import the controller back.
import * as accounts from './account_api.js';
import { t } from './i18n.js';
import { set, state } from './store.js';

const OPEN = ['signin', 'leaderboard', 'progression', 'replay'];
const SIGNED_IN = ['profile', 'operator'];

/**
 * Shows an account screen for this route; false when the route is not one of them.
 * `app` is the controller's { go, changeLanguage, toast, showError }.
 */
export function accountRoute(screen, arg, app) {
  if (screen === 'signin' && arg) {
    completeSignIn(decodeURIComponent(arg), app);
    return true;
  }
  if (OPEN.includes(screen) || (SIGNED_IN.includes(screen) && state.user)) {
    set({ screen, screenArg: arg ? decodeURIComponent(arg) : null });
    return true;
  }
  return false;
}

async function completeSignIn(token, app) {
  // The secret leaves the address bar (and the history) before anything else happens.
  history.replaceState(null, '', `${location.pathname}#/signin`);
  set({ screen: 'signin', screenArg: null, ui: { ...state.ui, signinConfirm: null } });
  try {
    await finishSignIn(await accounts.verifyLink(token), app);
  } catch (err) {
    if (err.code !== 'confirm_sign_in') { app.showError(err); return; }
    // Another browser asked for this link: say whose account it is and let the person choose (or not).
    try {
      const who = await accounts.peekLink(token);
      set({ ui: { ...state.ui, signinConfirm: { token, ...who } } });
    } catch (err2) { app.showError(err2); }
  }
}

/** The person's answer to "is this your account?": true (move the guest), false (do not), null (cancel). */
export async function confirmSignIn(merge, app) {
  const asked = state.ui.signinConfirm;
  set({ ui: { ...state.ui, signinConfirm: null } });
  if (!asked || merge === null) { app.go(state.user ? 'lobby' : 'start'); return; }
  try {
    await finishSignIn(await accounts.verifyLink(asked.token, merge), app);
  } catch (err) { app.showError(err); }
}

async function finishSignIn(r, { go, changeLanguage, toast }) {
  set({ user: r.user });
  if (r.user.language && r.user.language !== state.lang) await changeLanguage(r.user.language, false);
  toast(t('signin.done'), 'info');
  go('profile');
}
