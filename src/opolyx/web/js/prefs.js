// The player's own settings, remembered in this browser: sound (off until switched on), browser
// notifications, and paying at once when the cash is there. They change only how this client behaves:
// auto-pay sends the engine's own `pay` action the moment the server lists it as legal.
import { set, state } from './store.js';

const KEY = 'opolyx.prefs';
// shortcuts: the single-key P that pays (on by default; WCAG 2.1.4 asks that it can be turned off).
export const DEFAULTS = { sound: false, notify: false, autopay: false, shortcuts: true };

export function loadPrefs() {
  let saved = {};
  try { saved = JSON.parse(localStorage.getItem(KEY) || '{}') || {}; } catch { saved = {}; }
  const prefs = { ...DEFAULTS };
  for (const k of Object.keys(DEFAULTS)) if (typeof saved[k] === 'boolean') prefs[k] = saved[k];
  return prefs;
}

export function setPref(name, value) {
  const prefs = { ...state.prefs, [name]: value };
  localStorage.setItem(KEY, JSON.stringify(prefs));
  set({ prefs });
}
