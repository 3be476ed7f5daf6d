// The operator page (#/operator): the report queue with each reported line and the chat and game around
// it, live rooms and their players, bans and mutes, removing lines, ending rooms, and the audit log.
// Everyone but an operator gets 404 from every route it reads, and this page then says "not found".
import { useEffect, useState } from 'preact/hooks';
import { req } from '../api.js';
import { showError, toast } from '../controller.js';
import { html } from '../html.js';
import { t } from '../i18n.js';
import { modeName } from '../names.js';

const op = {
  me: () => req('GET', '/api/operator/me'),
  reports: () => req('GET', '/api/operator/reports'),
  rooms: () => req('GET', '/api/operator/rooms'),
  sanctions: () => req('GET', '/api/operator/sanctions'),
  audit: () => req('GET', '/api/operator/audit?limit=50'),
  sanction: (body) => req('POST', '/api/operator/sanctions', body),
  lift: (id, reason) => req('POST', `/api/operator/sanctions/${id}/lift`, { reason }),
  closeReport: (id, outcome) => req('POST', `/api/operator/reports/${id}/close`, { outcome }),
  closeRoom: (id, reason) => req('POST', `/api/operator/rooms/${encodeURIComponent(id)}/close`, { reason }),
  removeLine: (room, at, reason) => req('POST', '/api/operator/chat/remove', { room, at, reason }),
};

function ask(question) {
  const answer = window.prompt(question);
  return answer && answer.trim() ? answer.trim() : null;
}

function Sanction({ user, address, reload }) {
  const [minutes, setMinutes] = useState(60);
  const go = async (kind) => {
    const reason = ask(t('operator.reason'));
    if (!reason) return;
    try {
      await op.sanction({ kind, user: user || null, address: address || null, minutes, reason });
      toast(t('operator.done'));
      reload();
    } catch (err) { showError(err); }
  };
  return html`<span class="sanction">
    <select name="minutes" value=${minutes} onChange=${(e) => setMinutes(Number(e.target.value))} aria-label=${t('operator.duration')}>
      ${[15, 60, 1440, 10080, 43200].map((m) => html`<option value=${m}>${t('operator.minutes', { n: m })}</option>`)}</select>
    <button class="small" data-action="op-mute" onClick=${() => go('mute')}>${t('operator.mute')}</button>
    <button class="small" data-action="op-ban" onClick=${() => go('ban')}>${t('operator.ban')}</button></span>`;
}

function Line({ m, hit }) {
  return html`<li class=${hit ? 'reported-line' : ''}><b>${m.name}</b>: ${m.text}</li>`;
}

function Report({ r, reload }) {
  const close = async () => {
    const outcome = ask(t('operator.outcome'));
    if (!outcome) return;
    try { await op.closeReport(r.id, outcome); reload(); } catch (err) { showError(err); }
  };
  const remove = async () => {
    const reason = ask(t('operator.reason'));
    if (!reason) return;
    try { await op.removeLine(r.room, r.line.at, reason); toast(t('operator.done')); reload(); } catch (err) { showError(err); }
  };
  return html`<li class="report card" data-report=${r.id}>
    <div><b>${r.reported.name}</b> · ${t(`social.reason.${r.reason}`)} · <span class="muted small">${t('operator.by', { name: r.reporter.name })} · ${new Date(r.created_at).toLocaleString()}</span></div>
    ${r.note && html`<p>${r.note}</p>`}
    ${r.line && html`<blockquote class="line" data-testid="reported-line">${r.line.text}</blockquote>`}
    ${r.evidence.chat && r.evidence.chat.length > 0 && html`<details><summary>${t('operator.context')}</summary>
      <ol class="plain">${r.evidence.chat.map((m) => html`<${Line} m=${m} hit=${r.line && m.at === r.line.at} />`)}</ol>
      ${r.evidence.room && html`<p class="muted small">${modeName(r.evidence.room.mode)} · ${t(`lobby.status.${r.evidence.room.status}`)} · seq ${r.evidence.room.seq}</p>`}</details>`}
    <div class="row">
      <${Sanction} user=${r.reported.id} reload=${reload} />
      ${r.line && r.room && html`<button class="small" data-action="op-remove-line" onClick=${remove}>${t('operator.remove_line')}</button>`}
      ${!r.handled_at && html`<button class="small primary" data-action="op-close-report" onClick=${close}>${t('operator.close_report')}</button>`}
    </div></li>`;
}

export function OperatorScreen() {
  const [data, setData] = useState(null);
  const [denied, setDenied] = useState(false);
  const load = async () => {
    try {
      await op.me();
      const [reports, rooms, sanctions, audit] = await Promise.all([op.reports(), op.rooms(), op.sanctions(), op.audit()]);
      setData({ reports, rooms, sanctions, audit });
    } catch (err) {
      if (err.status === 404) setDenied(true); else showError(err);
    }
  };
  useEffect(() => { load(); }, []);
  if (denied) return html`<main class="operator-screen"><p class="muted" data-testid="not-found">${t('operator.not_found')}</p></main>`;
  if (!data) return html`<main class="operator-screen"><p class="muted">${t('conn.loading')}</p></main>`;
  const closeRoom = async (id) => {
    const reason = ask(t('operator.reason'));
    if (!reason) return;
    try { await op.closeRoom(id, reason); load(); } catch (err) { showError(err); }
  };
  const lift = async (id) => {
    const reason = ask(t('operator.reason'));
    if (!reason) return;
    try { await op.lift(id, reason); load(); } catch (err) { showError(err); }
  };
  return html`<main class="operator-screen" data-testid="operator">
    <section class="card"><h2>${t('operator.reports')}</h2>
      ${data.reports.length ? html`<ul class="plain reports">${data.reports.map((r) => html`<${Report} key=${r.id} r=${r} reload=${load} />`)}</ul>`
        : html`<p class="muted">${t('operator.no_reports')}</p>`}</section>
    <section class="card"><h2>${t('operator.rooms')}</h2>
      <ul class="plain">${data.rooms.map((room) => html`<li data-room=${room.id}><b>${modeName(room.mode)}</b> · ${t(`lobby.status.${room.status}`)}${room.public ? '' : ` · ${t('lobby.private')}`}
        · ${room.players.map((p) => html`<span class="chip">${p.name}${p.user ? html` <${Sanction} user=${p.user} reload=${load} />` : ''}</span>`)}
        <button class="small" data-action="op-close-room" onClick=${() => closeRoom(room.id)}>${t('operator.close_room')}</button></li>`)}</ul></section>
    <section class="card"><h2>${t('operator.sanctions')}</h2>
      <ul class="plain">${data.sanctions.map((s) => html`<li data-sanction=${s.id}>${t(`operator.${s.kind}`)} · ${s.user || s.address} · ${s.reason}
        · ${new Date(s.expires_at).toLocaleString()} <button class="small ghost" data-action="op-lift" onClick=${() => lift(s.id)}>${t('operator.lift')}</button></li>`)}</ul>
      <form class="row" onSubmit=${(e) => e.preventDefault()}>
        <input name="address" placeholder=${t('operator.address')} aria-label=${t('operator.address')}
          onInput=${(e) => setData({ ...data, address: e.target.value.trim() })} />
        ${data.address && html`<${Sanction} address=${data.address} reload=${load} />`}
      </form></section>
    <section class="card"><h2>${t('operator.audit')}</h2>
      <table class="audit" data-testid="audit"><tbody>${data.audit.map((a) => html`<tr>
        <td>${new Date(a.at).toLocaleString()}</td><td>${a.operator}</td><td>${a.action}</td><td>${a.target}</td><td>${a.reason}</td></tr>`)}</tbody></table></section>
  </main>`;
}
