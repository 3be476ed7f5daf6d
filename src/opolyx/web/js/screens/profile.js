// The profile: level, rank, XP to the next level, cards, recent games (with replays), settings,
// sessions, personal API keys for agents, e-mail sign-in for guests, and deleting the account.
import { useEffect, useState } from 'preact/hooks';
import * as accounts from '../account_api.js';
import { changeLanguage, go, showError, toast } from '../controller.js';
import { html } from '../html.js';
import { LANGUAGES, t } from '../i18n.js';
import { modeName, squareName } from '../names.js';
import { AVATARS, Avatar, RARITIES, RARITY_BONUS, XpBar, ensureBoardLoaded } from '../progress_view.js';
import { RatingsCard } from '../rating_view.js';
import { set, state } from '../store.js';
import { SignInCard } from './signin.js';
import { MyReliability } from '../social.js';

export function Cards({ cards }) {
  if (!cards.length) return html`<p class="muted">${t('profile.no_cards')}</p>`;
  const bySquare = {};
  for (const c of cards) (bySquare[c.square] ||= []).push(c);
  return html`<ul class="cards" data-testid="cards">${Object.entries(bySquare).map(([square, held]) => {
    held.sort((a, b) => RARITIES.indexOf(b.rarity) - RARITIES.indexOf(a.rarity));
    return html`<li data-square=${square}><b>${squareName(Number(square))}</b>
      ${held.map((c) => html`<span class=${`rarity rarity-${c.rarity}`} title=${t('profile.card_from', { level: c.level })}>
        ${t(`rarity.${c.rarity}`)} +${RARITY_BONUS[c.rarity]} %</span>`)}</li>`;
  })}</ul>`;
}

function Games({ games }) {
  if (!games.length) return html`<p class="muted">${t('profile.no_games')}</p>`;
  return html`<ul class="recent-games" data-testid="recent-games">${games.map((g) => html`<li data-game=${g.id}>
    <b>${modeName(g.mode)}</b> · ${g.place ? t('profile.place', { place: g.place }) : ''} · +${g.xp} XP
    <span class="muted small">${g.players.join(', ')}</span>
    <button data-action="replay" onClick=${() => go(`replay/${g.id}`)}>${t('profile.replay')}</button></li>`)}</ul>`;
}

function Settings({ profile, reload }) {
  const [nick, setNick] = useState(profile.user.nickname);
  const save = async (patch) => {
    try {
      const p = await accounts.patchProfile(patch);
      set({ user: p.user });
      if (patch.language) await changeLanguage(patch.language, false);
      reload(p);
      toast(t('profile.saved'), 'info');
    } catch (err) { showError(err); }
  };
  return html`<section class="card profile-settings">
    <h2>${t('profile.settings')}</h2>
    <form class="row" onSubmit=${(e) => { e.preventDefault(); if (nick.trim()) save({ nickname: nick.trim() }); }}>
      <label>${t('start.nickname')} <input name="nickname" maxlength="24" value=${nick} onInput=${(e) => setNick(e.target.value)} /></label>
      <button type="submit" data-action="save-nickname">${t('profile.save')}</button>
    </form>
    <div class="avatars" role="group" aria-label=${t('profile.avatar')}>${Object.keys(AVATARS).map((a) => html`<button
      class=${`avatar-choice ${profile.user.avatar === a ? 'on' : ''}`} data-avatar=${a} aria-pressed=${profile.user.avatar === a}
      aria-label=${t('a11y.avatar', { emoji: AVATARS[a] })}
      onClick=${() => save({ avatar: a })}><${Avatar} name=${a} /></button>`)}</div>
    <label>${t('start.language')} <select name="language" value=${profile.user.language}
      onChange=${(e) => save({ language: e.target.value })}>
      ${LANGUAGES.map((l) => html`<option value=${l}>${t(`language.${l}`)}</option>`)}</select></label>
  </section>`;
}

async function signOutEverywhere(others) {
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

function Sessions() {
  const [list, setList] = useState(null);
  const load = () => accounts.listSessions().then(setList).catch(showError);
  useEffect(() => { load(); }, []);
  return html`<section class="card sessions" data-testid="sessions">
    <h2>${t('profile.sessions')}</h2>
    ${list && html`<ul>${list.map((s) => html`<li class=${s.current ? 'me' : ''}>${s.user_agent || '?'}
      <span class="muted small">${new Date(s.last_seen_at).toLocaleString(state.lang)}</span>
      ${s.current && html` <span class="badge">${t('profile.this_device')}</span>`}</li>`)}</ul>`}
    <div class="buttons">
      <button data-action="sign-out-others" onClick=${async () => { await signOutEverywhere(true); load(); }}>${t('profile.sign_out_others')}</button>
      <button data-action="sign-out" onClick=${() => signOutEverywhere(false)}>${t('profile.sign_out')}</button>
    </div>
  </section>`;
}

function ApiKeys() {
  const [keys, setKeys] = useState(null);
  const [label, setLabel] = useState('');
  const [fresh, setFresh] = useState(null);
  const load = () => accounts.listKeys().then(setKeys).catch(() => setKeys(false));
  useEffect(() => { load(); }, []);
  if (keys === false) return null;  // the server offers no agent keys
  const create = async (e) => {
    e.preventDefault();
    try {
      setFresh(await accounts.createKey(label.trim() || 'agent'));
      setLabel('');
      load();
    } catch (err) { showError(err); }
  };
  return html`<section class="card api-keys" data-testid="api-keys">
    <h2>${t('keys.title')}</h2>
    <p class="muted small">${t('keys.why')}</p>
    ${fresh && html`<p class="key-once" data-testid="new-key">${t('keys.shown_once')} <code>${fresh.key}</code></p>`}
    ${keys && html`<ul>${keys.map((k) => html`<li data-key=${k.id}><b>${k.label}</b>
      <span class="muted small">${t('keys.last_used', { when: k.last_used_at ? new Date(k.last_used_at).toLocaleString(state.lang) : '—' })}</span>
      <button data-action="revoke-key" onClick=${async () => { try { await accounts.revokeKey(k.id); load(); } catch (err) { showError(err); } }}>${t('keys.revoke')}</button></li>`)}</ul>`}
    <form class="row" onSubmit=${create}>
      <input name="label" maxlength="40" value=${label} placeholder=${t('keys.label')} onInput=${(e) => setLabel(e.target.value)} />
      <button type="submit" data-action="create-key">${t('keys.create')}</button>
    </form>
  </section>`;
}

function DeleteAccount() {
  const [sure, setSure] = useState(false);
  const remove = async () => {
    try {
      await accounts.deleteAccount();
      set({ user: null, farewell: true });
      go('start');
    } catch (err) { showError(err); }
  };
  return html`<section class="card danger">
    <h2>${t('profile.delete')}</h2>
    <p class="muted small">${t('profile.delete_what')}</p>
    ${sure ? html`<button class="danger" data-action="confirm-delete" onClick=${remove}>${t('profile.delete_confirm')}</button>`
      : html`<button data-action="delete-account" onClick=${() => setSure(true)}>${t('profile.delete')}</button>`}
  </section>`;
}

export function ProfileScreen() {
  const [profile, setProfile] = useState(null);
  useEffect(() => {
    ensureBoardLoaded();
    accounts.getProfile().then(setProfile).catch(showError);
  }, []);
  if (!profile) return html`<main class="account-screen"><p>${t('conn.loading')}</p></main>`;
  const u = profile.user;
  return html`<main class="account-screen profile-screen" data-testid="profile">
    <section class="card profile-head">
      <h2><${Avatar} name=${u.avatar} big=${true} /> ${u.nickname}
        ${profile.vip && html`<span class="badge vip" title=${t('profile.vip_note')}>VIP</span>`}</h2>
      <p><span data-testid="level">${t('profile.level_rank', { level: u.level, rank: t(`rank.${profile.rank}`) })}</span>${' · '}<span data-testid="xp">${u.xp} XP</span> · ${t('profile.wins', { n: profile.wins })}</p>
      <${XpBar} xp=${u.xp} from=${profile.level_xp} to=${profile.next_level_xp} />
      <p class="muted small">${profile.next_level_xp ? t('profile.to_next', { xp: profile.next_level_xp - u.xp, level: u.level + 1 }) : t('profile.max_level')}</p>
      ${profile.email && html`<p class="muted small">${t('profile.signed_in_as', { email: profile.email })}</p>`}
      <${MyReliability} />
    </section>
    ${u.guest && html`<${SignInCard} />`}
    <${RatingsCard} />
    <section class="card"><h2>${t('profile.cards')}</h2><${Cards} cards=${profile.cards} /></section>
    <section class="card"><h2>${t('profile.recent_games')}</h2><${Games} games=${profile.recent_games} /></section>
    <${Settings} profile=${profile} reload=${setProfile} />
    <${Sessions} />
    <${ApiKeys} />
    <${DeleteAccount} />
  </main>`;
}
