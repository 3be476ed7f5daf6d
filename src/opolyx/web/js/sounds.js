// Short game sounds made with WebAudio (no files to load, nothing inline): dice, buying, rent, turn,
// alerts and bankruptcy. Silent unless the player switched sound on (off on a first visit).
import { state } from './store.js';

let ctx = null;

function audio() {
  if (!ctx) {
    const Ctor = window.AudioContext || window.webkitAudioContext;
    if (!Ctor) return null;
    ctx = new Ctor();
  }
  if (ctx.state === 'suspended') ctx.resume().catch(() => {});
  return ctx;
}

function tone(a, freq, at, length, { type = 'sine', gain = 0.12, slide = 0 } = {}) {
  const osc = a.createOscillator();
  const amp = a.createGain();
  osc.type = type;
  osc.frequency.setValueAtTime(freq, a.currentTime + at);
  if (slide) osc.frequency.linearRampToValueAtTime(freq + slide, a.currentTime + at + length);
  amp.gain.setValueAtTime(0.0001, a.currentTime + at);
  amp.gain.exponentialRampToValueAtTime(gain, a.currentTime + at + 0.01);
  amp.gain.exponentialRampToValueAtTime(0.0001, a.currentTime + at + length);
  osc.connect(amp).connect(a.destination);
  osc.start(a.currentTime + at);
  osc.stop(a.currentTime + at + length + 0.02);
}

const SOUNDS = {
  dice: (a) => { for (let k = 0; k < 5; k++) tone(a, 180 + 90 * ((k * 7) % 5), k * 0.045, 0.04, { type: 'square', gain: 0.05 }); },
  buy: (a) => { tone(a, 523, 0, 0.12); tone(a, 659, 0.09, 0.12); tone(a, 784, 0.18, 0.2); },
  rent: (a) => { tone(a, 988, 0, 0.08, { type: 'triangle' }); tone(a, 1319, 0.07, 0.18, { type: 'triangle' }); },
  turn: (a) => { tone(a, 660, 0, 0.14, { gain: 0.15 }); tone(a, 880, 0.13, 0.22, { gain: 0.15 }); },
  alert: (a) => { tone(a, 880, 0, 0.1, { gain: 0.15 }); tone(a, 880, 0.16, 0.1, { gain: 0.15 }); },
  bankrupt: (a) => { tone(a, 392, 0, 0.25, { type: 'sawtooth', gain: 0.06, slide: -120 }); tone(a, 262, 0.22, 0.45, { type: 'sawtooth', gain: 0.06, slide: -110 }); },
  win: (a) => { [523, 659, 784, 1047].forEach((f, k) => tone(a, f, k * 0.12, 0.3, { gain: 0.12 })); },
};

/** Play a named sound when sound is on; a browser that refuses audio stays silent. */
export function play(name) {
  if (!state.prefs || !state.prefs.sound || !SOUNDS[name]) return;
  try {
    const a = audio();
    if (a) SOUNDS[name](a);
  } catch { /* no audio: the game goes on silently */ }
}

/** The sounds for a batch of engine events, at most one of each kind. */
export function soundsFor(events) {
  const kinds = new Set();
  for (const ev of events) {
    if (ev.type === 'dice_rolled') kinds.add('dice');
    else if (ev.type === 'company_bought' || ev.type === 'auction_won' || ev.type === 'murabaha_bought') kinds.add('buy');
    else if (ev.type === 'debt_paid' || ev.type === 'rent_due') kinds.add('rent');
    else if (ev.type === 'player_out') kinds.add('bankrupt');
  }
  for (const k of kinds) play(k);
}
