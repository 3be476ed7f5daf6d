"""SQL implementation of the moderation half of the store (mixed into :class:`opolyx.storage.SqlStore`)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa

from opolyx.jsontypes import JSON
from opolyx.storage.moderation import (
    BLOCK,
    MUTE,
    RELIABILITY_GAMES,
    AuditRecord,
    InviteRecord,
    PersonRef,
    Reliability,
    ReportRecord,
    SanctionRecord,
)
from opolyx.storage.tables import (
    api_keys,
    chat_messages,
    chat_prefs,
    departures,
    mod_audit,
    mod_reports,
    mod_sanctions,
    room_seats,
    rooms,
    sessions,
    social_invites,
    social_links,
    users,
)

FINISHED = "finished"

# Asked for every chat line and every socket that connects: built once with bound parameters, so that
# SQLAlchemy finds them in its compiled cache instead of building and keying a statement per call (which
# cost three times the query itself; see sql.py on prepared statements).
_L = social_links.c
_HIDDEN_FROM = sa.select(_L.user_id, _L.other_id).where(
    sa.or_(
        sa.and_(
            _L.user_id.in_(sa.bindparam("readers", expanding=True)),
            _L.other_id == sa.bindparam("speaker"),
            _L.kind.in_((MUTE, BLOCK)),
        ),
        sa.and_(
            _L.user_id == sa.bindparam("speaker"),
            _L.other_id.in_(sa.bindparam("readers", expanding=True)),
            _L.kind == BLOCK,
        ),
    )
)
_HIDDEN_FOR = sa.select(_L.user_id, _L.other_id).where(
    sa.or_(
        sa.and_(_L.user_id == sa.bindparam("reader"), _L.kind.in_((MUTE, BLOCK))),
        sa.and_(_L.other_id == sa.bindparam("reader"), _L.kind == BLOCK),
    )
)
_S = mod_sanctions.c
_ACTIVE_SANCTION = (
    mod_sanctions.select()
    .where(
        _S.kind == sa.bindparam("kind"),
        _S.lifted_at.is_(None),
        _S.expires_at > sa.bindparam("now"),
        sa.or_(_S.user_id == sa.bindparam("uid"), _S.address == sa.bindparam("addr")),
    )
    .order_by(_S.expires_at.desc())
    .limit(1)
)
_FILTER_OFF = sa.select(chat_prefs.c.user_id).where(
    chat_prefs.c.user_id.in_(sa.bindparam("ids", expanding=True)), chat_prefs.c.filter_words.is_(False)
)


def _now() -> datetime:
    return datetime.now(UTC)


def _utc(value: datetime | None) -> datetime | None:
    if value is None or value.tzinfo is not None:
        return value
    return value.replace(tzinfo=UTC)


def _report(r: Any) -> ReportRecord:
    return ReportRecord(
        int(r.id),
        r.reporter_id,
        r.reported_id,
        r.room_id,
        r.reason,
        r.note,
        r.line,
        r.evidence,
        _utc(r.created_at) or _now(),
        _utc(r.handled_at),
        r.handled_by,
        r.outcome,
    )


def _sanction(r: Any) -> SanctionRecord:
    return SanctionRecord(
        int(r.id),
        r.kind,
        r.user_id,
        r.address,
        r.reason,
        r.created_by,
        _utc(r.created_at) or _now(),
        _utc(r.expires_at) or _now(),
        _utc(r.lifted_at),
    )


def _line(r: Any) -> JSON:
    return {
        "user": r.user_id,
        "name": r.name,
        "seat": r.seat,
        "spectator": bool(r.spectator),
        "text": r.text,
        "at": r.at,
    }


class ModerationSql:
    """Needs ``self.engine`` (see opolyx.storage.sql.Db)."""

    engine: Any

    # links between people -----------------------------------------------------------------------------

    async def set_link(self, user_id: str, other_id: str, kind: str, on: bool) -> None:
        key = (social_links.c.user_id == user_id, social_links.c.other_id == other_id, social_links.c.kind == kind)
        async with self.engine.begin() as conn:
            if not on:
                await conn.execute(social_links.delete().where(*key))
                return
            if (await conn.execute(sa.select(social_links.c.kind).where(*key))).first() is None:
                await conn.execute(
                    social_links.insert().values(user_id=user_id, other_id=other_id, kind=kind, created_at=_now())
                )

    async def links_of(self, user_id: str, kind: str) -> list[PersonRef]:
        return await self._linked(social_links.c.user_id, social_links.c.other_id, user_id, kind)

    async def linked_to(self, user_id: str, kind: str) -> list[PersonRef]:
        return await self._linked(social_links.c.other_id, social_links.c.user_id, user_id, kind)

    async def _linked(self, mine: sa.Column[str], theirs: sa.Column[str], user_id: str, kind: str) -> list[PersonRef]:
        """The people at the other end of ``user_id``'s links of ``kind``: links ``user_id`` made (``mine`` is
        the maker's column) or links made to ``user_id`` (``mine`` is the target's), by nickname."""
        query = (
            sa.select(users.c.id, users.c.nickname)
            .join(social_links, theirs == users.c.id)
            .where(mine == user_id, social_links.c.kind == kind)
            .order_by(users.c.nickname)
        )
        async with self.engine.connect() as conn:
            return [PersonRef(r.id, r.nickname) for r in (await conn.execute(query)).all()]

    async def is_blocked(self, a: str, b: str) -> bool:
        return bool(await self.blocked_pairs([a, b]))

    async def blocked_pairs(self, user_ids: Iterable[str]) -> set[frozenset[str]]:
        ids = sorted(set(user_ids))
        if len(ids) < 2:
            return set()
        query = sa.select(social_links.c.user_id, social_links.c.other_id).where(
            social_links.c.kind == BLOCK, social_links.c.user_id.in_(ids), social_links.c.other_id.in_(ids)
        )
        async with self.engine.connect() as conn:
            return {frozenset((r.user_id, r.other_id)) for r in (await conn.execute(query)).all()}

    async def hidden_from(self, viewers: Iterable[str], speaker: str) -> set[str]:
        ids = sorted(set(viewers) - {speaker})
        if not ids:
            return set()
        async with self.engine.connect() as conn:
            rows = (await conn.execute(_HIDDEN_FROM, {"readers": ids, "speaker": speaker})).all()
        return {r.other_id if r.user_id == speaker else r.user_id for r in rows}

    async def hidden_for(self, viewer: str) -> set[str]:
        async with self.engine.connect() as conn:
            rows = (await conn.execute(_HIDDEN_FOR, {"reader": viewer})).all()
        return {r.other_id if r.user_id == viewer else r.user_id for r in rows}

    async def users_by_nickname(self, nickname: str, limit: int = 3) -> list[PersonRef]:
        query = (
            sa.select(users.c.id, users.c.nickname)
            .where(sa.func.lower(users.c.nickname) == nickname.strip().lower(), users.c.deleted_at.is_(None))
            .order_by(users.c.created_at.desc())
            .limit(limit)
        )
        async with self.engine.connect() as conn:
            return [PersonRef(r.id, r.nickname) for r in (await conn.execute(query)).all()]

    async def last_seen(self, user_ids: Sequence[str]) -> dict[str, datetime]:
        """When each person's sessions last reached the server (whether they are online)."""
        if not user_ids:
            return {}
        query = (
            sa.select(sessions.c.user_id, sa.func.max(sessions.c.last_seen_at).label("seen"))
            .where(sessions.c.user_id.in_(list(user_ids)), sessions.c.revoked_at.is_(None))
            .group_by(sessions.c.user_id)
        )
        async with self.engine.connect() as conn:
            return {r.user_id: _utc(r.seen) or _now() for r in (await conn.execute(query)).all()}

    # invitations --------------------------------------------------------------------------------------

    async def add_invite(self, from_id: str, to_id: str, room_id: str) -> None:
        async with self.engine.begin() as conn:
            await conn.execute(
                social_invites.delete().where(
                    social_invites.c.from_id == from_id,
                    social_invites.c.to_id == to_id,
                    social_invites.c.room_id == room_id,
                )
            )
            await conn.execute(
                social_invites.insert().values(from_id=from_id, to_id=to_id, room_id=room_id, created_at=_now())
            )

    async def invite(self, invite_id: int, to_id: str) -> InviteRecord | None:
        query = (
            sa.select(social_invites, users.c.nickname)
            .join(users, users.c.id == social_invites.c.from_id)
            .where(social_invites.c.id == invite_id, social_invites.c.to_id == to_id)
        )
        async with self.engine.connect() as conn:
            r = (await conn.execute(query)).first()
        return (
            None
            if r is None
            else InviteRecord(int(r.id), r.from_id, r.nickname, r.room_id, _utc(r.created_at) or _now())
        )

    async def invites_for(self, user_id: str, since: datetime) -> list[InviteRecord]:
        query = (
            sa.select(social_invites, users.c.nickname)
            .join(users, users.c.id == social_invites.c.from_id)
            .where(social_invites.c.to_id == user_id, social_invites.c.created_at >= since)
            .order_by(social_invites.c.id.desc())
            .limit(20)
        )
        async with self.engine.connect() as conn:
            rows = (await conn.execute(query)).all()
        return [InviteRecord(int(r.id), r.from_id, r.nickname, r.room_id, _utc(r.created_at) or _now()) for r in rows]

    # the chat filter ------------------------------------------------------------------------------------

    async def set_chat_filter(self, user_id: str, on: bool) -> None:
        async with self.engine.begin() as conn:
            await conn.execute(chat_prefs.delete().where(chat_prefs.c.user_id == user_id))
            await conn.execute(chat_prefs.insert().values(user_id=user_id, filter_words=on))

    async def chat_filter_off(self, user_ids: Iterable[str]) -> set[str]:
        ids = sorted(set(user_ids))
        if not ids:
            return set()
        async with self.engine.connect() as conn:
            return {r.user_id for r in (await conn.execute(_FILTER_OFF, {"ids": ids})).all()}

    # reports --------------------------------------------------------------------------------------------

    async def add_report(
        self,
        reporter_id: str,
        reported_id: str,
        *,
        room_id: str | None,
        reason: str,
        note: str | None,
        line: JSON | None,
        evidence: JSON,
    ) -> int:
        async with self.engine.begin() as conn:
            result = await conn.execute(
                mod_reports.insert().values(
                    reporter_id=reporter_id,
                    reported_id=reported_id,
                    room_id=room_id,
                    reason=reason,
                    note=note,
                    line=line,
                    evidence=evidence,
                    created_at=_now(),
                )
            )
            return int(result.inserted_primary_key[0])

    async def chat_around(self, room_id: str, at: float, before: int, after: int) -> tuple[JSON | None, list[JSON]]:
        c = chat_messages.c
        async with self.engine.connect() as conn:
            if at >= 0:
                hit = (
                    await conn.execute(
                        chat_messages.select()
                        .where(c.room_id == room_id, c.at > at - 0.0005, c.at < at + 0.0005)
                        .order_by(c.id)
                        .limit(1)
                    )
                ).first()
            else:
                hit = None
            if hit is None:
                rows = (
                    await conn.execute(
                        chat_messages.select().where(c.room_id == room_id).order_by(c.id.desc()).limit(before)
                    )
                ).all()
                return None, [_line(r) for r in reversed(rows)]
            earlier = (
                await conn.execute(
                    chat_messages.select()
                    .where(c.room_id == room_id, c.id < hit.id)
                    .order_by(c.id.desc())
                    .limit(before)
                )
            ).all()
            later = (
                await conn.execute(
                    chat_messages.select().where(c.room_id == room_id, c.id > hit.id).order_by(c.id).limit(after)
                )
            ).all()
        return _line(hit), [_line(r) for r in [*reversed(earlier), hit, *later]]

    async def reports(self, *, open_only: bool, limit: int) -> list[ReportRecord]:
        query = mod_reports.select().order_by(mod_reports.c.id.desc()).limit(limit)
        if open_only:
            query = query.where(mod_reports.c.handled_at.is_(None))
        async with self.engine.connect() as conn:
            return [_report(r) for r in (await conn.execute(query)).all()]

    async def reports_by(self, reporter_id: str, limit: int) -> list[ReportRecord]:
        query = mod_reports.select().where(mod_reports.c.reporter_id == reporter_id).order_by(mod_reports.c.id.desc())
        async with self.engine.connect() as conn:
            return [_report(r) for r in (await conn.execute(query.limit(limit))).all()]

    async def get_report(self, report_id: int) -> ReportRecord | None:
        async with self.engine.connect() as conn:
            row = (await conn.execute(mod_reports.select().where(mod_reports.c.id == report_id))).first()
        return None if row is None else _report(row)

    async def close_report(self, report_id: int, operator: str, outcome: str) -> bool:
        async with self.engine.begin() as conn:
            result = await conn.execute(
                mod_reports.update()
                .where(mod_reports.c.id == report_id, mod_reports.c.handled_at.is_(None))
                .values(handled_at=_now(), handled_by=operator[:64], outcome=outcome[:200])
            )
        return bool(result.rowcount)

    # sanctions ------------------------------------------------------------------------------------------

    async def add_sanction(
        self, kind: str, *, user_id: str | None, address: str | None, reason: str, by: str, until: datetime
    ) -> int:
        async with self.engine.begin() as conn:
            result = await conn.execute(
                mod_sanctions.insert().values(
                    kind=kind,
                    user_id=user_id,
                    address=address,
                    reason=reason[:500],
                    created_by=by[:64],
                    created_at=_now(),
                    expires_at=until,
                )
            )
            return int(result.inserted_primary_key[0])

    async def lift_sanction(self, sanction_id: int) -> SanctionRecord | None:
        async with self.engine.begin() as conn:
            await conn.execute(
                mod_sanctions.update()
                .where(mod_sanctions.c.id == sanction_id, mod_sanctions.c.lifted_at.is_(None))
                .values(lifted_at=_now())
            )
            row = (await conn.execute(mod_sanctions.select().where(mod_sanctions.c.id == sanction_id))).first()
        return None if row is None else _sanction(row)

    async def active_sanction(self, kind: str, *, user_id: str | None, address: str | None) -> SanctionRecord | None:
        if user_id is None and address is None:
            return None
        params = {"kind": kind, "now": _now(), "uid": user_id, "addr": address}
        async with self.engine.connect() as conn:
            row = (await conn.execute(_ACTIVE_SANCTION, params)).first()
        return None if row is None else _sanction(row)

    async def sanctions(self, *, active_only: bool, limit: int) -> list[SanctionRecord]:
        query = mod_sanctions.select().order_by(mod_sanctions.c.id.desc()).limit(limit)
        if active_only:
            query = query.where(mod_sanctions.c.lifted_at.is_(None), mod_sanctions.c.expires_at > _now())
        async with self.engine.connect() as conn:
            return [_sanction(r) for r in (await conn.execute(query)).all()]

    async def revoke_api_keys(self, user_id: str) -> int:
        async with self.engine.begin() as conn:
            result = await conn.execute(
                api_keys.update()
                .where(api_keys.c.user_id == user_id, api_keys.c.revoked_at.is_(None))
                .values(revoked_at=_now())
            )
        return int(result.rowcount or 0)

    async def remove_chat_line(self, room_id: str, at: float, text: str) -> int:
        c = chat_messages.c
        async with self.engine.begin() as conn:
            result = await conn.execute(
                chat_messages.update()
                .where(c.room_id == room_id, c.at > at - 0.0005, c.at < at + 0.0005)
                .values(text=text)
            )
        return int(result.rowcount or 0)

    # the audit log --------------------------------------------------------------------------------------

    async def audit(self, operator: str, action: str, target: str, reason: str, details: JSON | None = None) -> None:
        async with self.engine.begin() as conn:
            await conn.execute(
                mod_audit.insert().values(
                    at=_now(),
                    operator=operator[:320],
                    action=action[:32],
                    target=target[:200],
                    reason=reason[:500],
                    details=details,
                )
            )

    async def audit_log(self, limit: int) -> list[AuditRecord]:
        query = mod_audit.select().order_by(mod_audit.c.id.desc()).limit(limit)
        async with self.engine.connect() as conn:
            rows = (await conn.execute(query)).all()
        return [
            AuditRecord(int(r.id), _utc(r.at) or _now(), r.operator, r.action, r.target, r.reason, r.details)
            for r in rows
        ]

    # reliability ----------------------------------------------------------------------------------------

    async def record_departure(self, game_id: str, user_id: str, kind: str) -> None:
        async with self.engine.begin() as conn:
            known = (
                await conn.execute(
                    sa.select(departures.c.kind).where(departures.c.game_id == game_id, departures.c.user_id == user_id)
                )
            ).first()
            if known is None:
                await conn.execute(departures.insert().values(game_id=game_id, user_id=user_id, kind=kind, at=_now()))

    async def reliability(self, user_ids: Sequence[str]) -> dict[str, Reliability]:
        out: dict[str, Reliability] = {}
        async with self.engine.connect() as conn:
            for uid in dict.fromkeys(user_ids):
                rows = (
                    await conn.execute(
                        sa.select(room_seats.c.room_id, room_seats.c.replaced_user_id)
                        .join(rooms, rooms.c.id == room_seats.c.room_id)
                        .where(
                            sa.or_(room_seats.c.user_id == uid, room_seats.c.replaced_user_id == uid),
                            rooms.c.status == FINISHED,
                        )
                        .order_by(rooms.c.finished_at.desc())
                        .limit(RELIABILITY_GAMES)
                    )
                ).all()
                games = {r.room_id for r in rows}
                left = {r.room_id for r in rows if r.replaced_user_id == uid}
                if games:
                    gone = (
                        await conn.execute(
                            sa.select(departures.c.game_id).where(
                                departures.c.user_id == uid, departures.c.game_id.in_(sorted(games))
                            )
                        )
                    ).scalars()
                    left.update(str(g) for g in gone)
                out[uid] = Reliability(len(games), len(left & games))
        return out
