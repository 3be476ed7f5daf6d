// Routes of the account pages (profile, leaderboard, progression, replay, e-mail sign-in).
import * as accounts from './account_api.js';
import { go, showError, toast } from './controller.js';
import { changeLanguage } from './controller.js';
import { t } from './i18n.js';
import { set, state } from './store.js';

const OPEN = ['signin', 'leaderboard', 'progression', 'replay'];
const SIGNED_IN = ['profile'];

/** Shows an account screen for this route; false when the route is not one of them. */
export function accountRoute(screen, arg) {
  if (screen === 'signin' && arg) {
    completeSignIn(decodeURIComponent(arg));
    return true;
  }
  if (OPEN.includes(screen) || (SIGNED_IN.includes(screen) && state.user)) {
    set({ screen, screenArg: arg ? decodeURIComponent(arg) : null });
    return true;
  }
  return false;
}

async function completeSignIn(token) {
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

export async function signOutEverywhere(others) {
  try {
    if (others) {
      const r = await accounts.signOutOthers();
      toast(t('profile.sessions_revoked', { n: r.revoked }), 'info');
    } else {
      await accounts.signOut();
      set({ user: null });
      go('start');
    }
  } catch (err) { showError(err); }
}
