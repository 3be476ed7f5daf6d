// Routes of the account pages (profile, leaderboard, progression, replay, e-mail sign-in).
// The controller routes here and hands in what the sign-in needs of it (navigation, language, toasts),
// so this module does not import the controller back.
import * as accounts from './account_api.js';
import { t } from './i18n.js';
import { set, state } from './store.js';

const OPEN = ['signin', 'leaderboard', 'progression', 'replay'];
const SIGNED_IN = ['profile'];

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

async function completeSignIn(token, { go, changeLanguage, toast, showError }) {
  // The secret leaves the address bar (and the history) before anything else happens.
  history.replaceState(null, '', `${location.pathname}#/signin`);
  set({ screen: 'signin', screenArg: null });
  try {
    const r = await accounts.verifyLink(token);
    set({ user: r.user });
    if (r.user.language && r.user.language !== state.lang) await changeLanguage(r.user.language, false);
    toast(t('signin.done'), 'info');
    go('profile');
  } catch (err) {
    showError(err);
  }
}
