// Table manners: friends (add by nickname, from a game, from the chat; who is online and where; one-click
// invitations), mutes and blocks (the server keeps their chat from reaching you), reports with a reason,
// the chat's word filter switch, and how often each seat's person left games early.
import { useEffect, useState } from 'preact/hooks';
import { req } from './api.js';
import { go, showError, toast } from './controller.js';
import { html } from './html.js';
import { t } from './i18n.js';
import { modeName } from './names.js';
import { setUi, state } from './store.js';

export const REASONS = ['abuse', 'cheating', 'spam', 'quitting', 'name', 'other'];

export const social = {
  get: () => req('GET', '/api/social'),
  friend: (target) => req('POST', '/api/social/friends', target),
  mute: (target) => req('POST', '/api/social/mutes', target),
  block: (target) => req('POST', '/api/social/blocks', target),
  undo: (kind, id) => req('DELETE', `/api/social/${kind}/${encodeURIComponent(id)}`),
  invite: (id) => req('POST', '/api/social/invites', { user: id }),
  filter: (on) => req('PUT', '/api/social/filter', { on }),
  report: (target, reason, note) => req('POST', '/api/reports', { ...target, reason, note: note || null }),
  reliability: (roomId) => req('GET', `/api/rooms/${encodeURIComponent(roomId)}/reliability`),
};

/** Re-read my friends, requests, mutes, blocks and invitations (kept in state.ui.social). */
export async function refreshSocial() {
  if (!state.user) return null;
  try {
    const data = await social.get();
    setUi({ social: data });
    return data;
  } catch (err) {
    if (err.status !== 401) showError(err);
    return null;
  }
}

async function act(fn, done) {
  try {
    await fn();
    if (done) toast(done);
    refreshSocial();
    return true;
  } catch (err) { showError(err); return false; }
}

/** The menu of a person at the table (a seat, or the speaker of a chat line): friend, mute, block, report. */
export function PersonMenu({ target, name }) {
  const [reporting, setReporting] = useState(false);
  const [reason, setReason] = useState('abuse');
  const [note, setNote] = useState('');
  const send = async (e) => {
    e.preventDefault();
    if (await act(() => social.report(target, reason, note), t('social.reported'))) { setReporting(false); setNote(''); }
  };
  return html`<details class="person-menu" data-testid="person-menu">
    <summary aria-label=${t('social.menu', { name })} title=${t('social.menu', { name })}>⋯</summary>
    <div class="person-menu-items">
      <button class="small" data-action="add-friend" onClick=${() => act(() => social.friend(target), t('social.friend_asked', { name }))}>${t('social.add_friend')}</button>
      <button class="small" data-action="mute" onClick=${() => act(() => social.mute(target), t('social.muted_done', { name }))}>${t('social.mute')}</button>
      <button class="small" data-action="block" onClick=${() => act(() => social.block(target), t('social.blocked_done', { name }))}>${t('social.block')}</button>
      <button class="small" data-action="report" onClick=${() => setReporting(!reporting)}>${t('social.report')}</button>
      ${reporting && html`<form class="report-form" onSubmit=${send}>
        <label>${t('social.reason')} <select name="reason" value=${reason} onChange=${(e) => setReason(e.target.value)}>
          ${REASONS.map((r) => html`<option value=${r}>${t(`social.reason.${r}`)}</option>`)}</select></label>
        <input name="note" maxlength="500" value=${note} placeholder=${t('social.note')} aria-label=${t('social.note')}
          onInput=${(e) => setNote(e.target.value)} />
        <button type="submit" class="small primary" data-action="send-report">${t('social.send_report')}</button>
      </form>`}
    </div>
  </details>`;
}

/** How often a seat's person left their last games early (fetched once per room and status). */
export function useReliability() {
  const room = state.room;
  const key = room ? `${room.id}:${room.status}:${room.players.length}` : null;
  useEffect(() => {
    if (!key || !state.user) return;
    social.reliability(room.id).then((r) => setUi({ reliability: { key, seats: r.seats } })).catch(() => {});
  }, [key]);
  const known = state.ui.reliability;
  return known && known.key === key ? known.seats : {};
}

export function ReliabilityBadge({ info }) {
  if (!info || !info.games) return null;
  const cls = info.share >= 0.3 ? 'badge warn' : 'badge';
  return html`<span class=${cls} data-reliability title=${t('social.reliability_title')}>
    ${t('social.left_early', { n: info.departed, total: info.games })}</span>`;
}

function People({ list, kind, label }) {
  if (!list || !list.length) return null;
  return html`<div class="people-list" data-list=${kind}><h4>${label}</h4><ul class="plain">${list.map((p) => html`<li data-person=${p.name}>
    ${p.name} <button class="small ghost" data-action=${`undo-${kind}`} onClick=${() => act(() => social.undo(kind, p.id))}>${t(`social.undo.${kind}`)}</button></li>`)}</ul></div>`;
}

/** Accept an invitation: the server seats me (on the inviter's side in Team; a private room too). */
async function joinInvite(inv) {
  try {
    await req('POST', `/api/social/invites/${inv.id}/accept`);
    go(`room/${inv.room}`);
  } catch (err) { showError(err); }
}

/** The lobby's friends card: add by nickname, who is online and where, requests, invitations, lists. */
export function FriendsPanel() {
  const [name, setName] = useState('');
  const data = state.ui.social;
  useEffect(() => {
    refreshSocial();
    const timer = setInterval(refreshSocial, 15000);
    return () => clearInterval(timer);
  }, []);
  const add = async (e) => {
    e.preventDefault();
    if (name.trim() && await act(() => social.friend({ name: name.trim() }), t('social.friend_asked', { name: name.trim() }))) setName('');
  };
  return html`<section class="card friends" data-testid="friends">
    <h2>${t('social.friends')}</h2>
    <form class="row" onSubmit=${add}>
      <input name="friend" value=${name} maxlength="40" placeholder=${t('social.nickname')} aria-label=${t('social.nickname')}
        onInput=${(e) => setName(e.target.value)} />
      <button type="submit" data-action="add-friend-name">${t('social.add_friend')}</button>
    </form>
    ${data && data.invites.length > 0 && html`<ul class="plain invites" data-list="invites">${data.invites.map((inv) => html`<li data-invite=${inv.room}>
      ${t('social.invited_you', { name: inv.from.name, mode: modeName(inv.mode) })}
      <button class="small primary" data-action="accept-invite" onClick=${() => joinInvite(inv)}>${t('lobby.join')}</button></li>`)}</ul>`}
    ${data && (data.friends.length
      ? html`<ul class="plain" data-list="friends">${data.friends.map((f) => html`<li data-friend=${f.name}>
          <i class=${`dot ${f.online ? 'online' : 'offline'}`}></i> <b>${f.name}</b>${' '}
          <span class="muted small">${f.online ? t('social.online') : t('social.offline')}</span>
          ${f.room && html` · <a href=${`#/room/${f.room.id}`} data-action="friend-room">${t('social.playing', { mode: modeName(f.room.mode) })}</a>`}
          <button class="small ghost" data-action="undo-friends" onClick=${() => act(() => social.undo('friends', f.id))}>${t('social.undo.friends')}</button></li>`)}</ul>`
      : html`<p class="muted">${t('social.no_friends')}</p>`)}
    ${data && data.requests.length > 0 && html`<div class="people-list" data-list="requests"><h4>${t('social.requests')}</h4>
      <ul class="plain">${data.requests.map((p) => html`<li data-person=${p.name}>${p.name}
        <button class="small primary" data-action="accept-friend" onClick=${() => act(() => social.friend({ user: p.id }))}>${t('social.accept')}</button>
        <button class="small ghost" data-action="decline-friend" onClick=${() => act(() => social.undo('friends', p.id))}>${t('social.decline')}</button></li>`)}</ul></div>`}
    ${data && html`<${People} list=${data.asked} kind="friends" label=${t('social.asked')} />
      <${People} list=${data.muted} kind="mutes" label=${t('social.muted')} />
      <${People} list=${data.blocked} kind="blocks" label=${t('social.blocked')} />
      <label class="check"><input type="checkbox" name="chat_filter" checked=${data.chat_filter}
        onChange=${(e) => act(() => social.filter(e.target.checked))} /> ${t('social.chat_filter')}</label>
      ${data.reliability.games > 0 && html`<p class="muted small" data-testid="my-reliability">${t('social.my_reliability', { n: data.reliability.departed, total: data.reliability.games })}</p>`}`}
  </section>`;
}

/** In a room: my online friends, each one click away from an invitation. */
export function InviteFriends() {
  const data = state.ui.social;
  useEffect(() => { refreshSocial(); }, [state.roomId]);
  const seated = state.room && state.room.players.some((p) => p.you);
  if (!seated || !data || !data.friends.length) return null;
  return html`<div class="invite-friends" data-testid="invite-friends"><h4>${t('social.invite_friends')}</h4>
    <ul class="plain">${data.friends.map((f) => html`<li data-friend=${f.name}><i class=${`dot ${f.online ? 'online' : 'offline'}`}></i> ${f.name}
      <button class="small" data-action="invite" onClick=${() => act(() => social.invite(f.id), t('social.invite_sent', { name: f.name }))}>${t('social.invite')}</button></li>`)}</ul></div>`;
}

/** On my profile: how many of my last finished games I left early or forfeited. */
export function MyReliability() {
  const data = state.ui.social;
  useEffect(() => { refreshSocial(); }, []);
  if (!data || !data.reliability.games) return null;
  return html`<p class="muted small" data-testid="profile-reliability">${t('social.my_reliability', { n: data.reliability.departed, total: data.reliability.games })}</p>`;
}
