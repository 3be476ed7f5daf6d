"""SQL implementation of the accounts half of the store (mixed into :class:`opolyx.storage.SqlStore`)."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

import sqlalchemy as sa

from opolyx.progression.booking import Credit, Standing, Totals
from opolyx.storage.accounts import (
    LINK_EXPIRED,
    LINK_UNKNOWN,
    LINK_USED,
    AwardRecord,
    CardRecord,
    GameSummary,
    LeaderRow,
    MagicLinkRecord,
    SessionRecord,
)
from opolyx.storage.ratings_sql import merge_ratings
from opolyx.storage.tables import (
    api_keys,
    cards,
    chat_messages,
    magic_links,
    room_seats,
    rooms,
    seat_marks,
    sessions,
    users,
    xp_awards,
    xp_merges,
)

# What a deleted account's name becomes, in its own row and in past games and chat.
DELETED_NAME = "—"
# What a deleted account's chat lines say instead of what was written.
DELETED_TEXT = "[deleted]"
# A session's last_seen_at is refreshed at most this often (one write per request would be wasteful).
SEEN_RESOLUTION = timedelta(minutes=5)
# Looked up for every request and socket a session opens; built once (see sql.py on prepared statements).
_LIVE_SESSION_BY_HASH = sessions.select().where(
    sessions.c.token_hash == sa.bindparam("token_hash"),
    sessions.c.revoked_at.is_(None),
    sessions.c.expires_at > sa.bindparam("now"),
)


def _now() -> datetime:
    return datetime.now(UTC)


def _utc(value: datetime) -> datetime:
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def _session(row: Any) -> SessionRecord:
    return SessionRecord(
        row.id, row.user_id, row.user_agent, _utc(row.created_at), _utc(row.last_seen_at), _utc(row.expires_at)
    )


def _card(row: Any) -> CardRecord:
    return CardRecord(row.id, row.square, row.rarity, row.level, row.seed, row.game_id, _utc(row.created_at))


class AccountsSql:
    """Needs ``self.engine`` (see opolyx.storage.sql.Db)."""

    engine: Any

    # sessions ---------------------------------------------------------------------------------------

    async def create_session(
        self, session_id: str, user_id: str, token_hash: str, *, user_agent: str | None, expires_at: datetime
    ) -> SessionRecord:
        now = _now()
        agent = (user_agent or "")[:200] or None
        row: dict[str, Any] = {
            "id": session_id,
            "token_hash": token_hash,
            "user_id": user_id,
            "user_agent": agent,
            "created_at": now,
            "last_seen_at": now,
            "expires_at": expires_at,
        }
        async with self.engine.begin() as conn:
            await conn.execute(sessions.insert().values(**row))
        return SessionRecord(session_id, user_id, agent, now, now, expires_at)

    async def session_by_token(self, token_hash: str, now: datetime) -> SessionRecord | None:
        async with self.engine.connect() as conn:
            row = (
                await conn.execute(_LIVE_SESSION_BY_HASH, {"token_hash": token_hash, "now": now})
            ).first()
        if row is None:
            return None
        record = _session(row)
        if now - record.last_seen_at > SEEN_RESOLUTION:
            async with self.engine.begin() as conn:
                await conn.execute(sessions.update().where(sessions.c.id == record.id).values(last_seen_at=now))
        return record

    async def list_sessions(self, user_id: str, now: datetime) -> list[SessionRecord]:
        query = (
            sessions.select()
            .where(sessions.c.user_id == user_id, sessions.c.revoked_at.is_(None), sessions.c.expires_at > now)
            .order_by(sessions.c.last_seen_at.desc())
        )
        async with self.engine.connect() as conn:
            return [_session(r) for r in (await conn.execute(query)).all()]

    async def revoke_sessions(self, user_id: str, *, only: str | None = None, keep: str | None = None) -> int:
        now = _now()
        stmt = sessions.update().where(
            sessions.c.user_id == user_id, sessions.c.revoked_at.is_(None), sessions.c.expires_at > now
        )
        if only is not None:
            stmt = stmt.where(sessions.c.id == only)
        if keep is not None:
            stmt = stmt.where(sessions.c.id != keep)
        async with self.engine.begin() as conn:
            result = await conn.execute(stmt.values(revoked_at=now))
        return int(result.rowcount or 0)

    # magic links --------------------------------------------------------------------------------------

    async def create_magic_link(
        self, token_hash: str, email: str, *, guest_id: str | None, expires_at: datetime
    ) -> None:
        async with self.engine.begin() as conn:
            await conn.execute(
                magic_links.insert().values(
                    token_hash=token_hash, email=email, guest_id=guest_id, created_at=_now(), expires_at=expires_at
                )
            )

    async def peek_magic_link(self, token_hash: str, now: datetime) -> MagicLinkRecord | None:
        async with self.engine.connect() as conn:
            row = (
                await conn.execute(
                    magic_links.select().where(
                        magic_links.c.token_hash == token_hash,
                        magic_links.c.used_at.is_(None),
                        magic_links.c.expires_at > now,
                    )
                )
            ).first()
        return None if row is None else MagicLinkRecord(row.email, row.guest_id)

    async def consume_magic_link(self, token_hash: str, now: datetime) -> MagicLinkRecord | str:
        async with self.engine.begin() as conn:
            # The guarded UPDATE is the single-use check: of two racing openers only one changes a row.
            result = await conn.execute(
                magic_links.update()
                .where(
                    magic_links.c.token_hash == token_hash,
                    magic_links.c.used_at.is_(None),
                    magic_links.c.expires_at > now,
                )
                .values(used_at=now)
            )
            row = (await conn.execute(magic_links.select().where(magic_links.c.token_hash == token_hash))).first()
        if row is None:
            return LINK_UNKNOWN
        if result.rowcount != 1:
            return LINK_USED if row.used_at is not None else LINK_EXPIRED
        return MagicLinkRecord(row.email, row.guest_id)

    # accounts -----------------------------------------------------------------------------------------

    async def user_by_email(self, email: str) -> str | None:
        async with self.engine.connect() as conn:
            found = (await conn.execute(sa.select(users.c.id).where(users.c.email == email))).scalar()
        return None if found is None else str(found)

    async def attach_email(self, user_id: str, email: str) -> None:
        async with self.engine.begin() as conn:
            await conn.execute(
                users.update().where(users.c.id == user_id).values(email=email, email_verified_at=_now())
            )

    async def merge_user(
        self, guest_id: str, into_id: str, merge: Callable[[Standing, int, int], Totals]
    ) -> None:
        async with self.engine.begin() as conn:
            guest = (await conn.execute(users.select().where(users.c.id == guest_id))).first()
            query = users.select().where(users.c.id == into_id)
            if conn.dialect.name == "postgresql":
                query = query.with_for_update()
            into = (await conn.execute(query)).first()
            if guest is None or into is None or guest_id == into_id:
                return
            # Games, chat and rooms move; the guest's awards and cards stay on the (emptied) guest row: the
            # XP it brings is added within the account's daily cap, and the account's cards follow the
            # level that results, drawn from its own committed seed (docs/accounts.md, "Merging").
            for table, column in (
                (room_seats, room_seats.c.user_id),
                (chat_messages, chat_messages.c.user_id),
            ):
                await conn.execute(table.update().where(column == guest_id).values(user_id=into_id))
            # The browser that opened the link gets a fresh session; the guest's old ones end.
            await conn.execute(
                sessions.update()
                .where(sessions.c.user_id == guest_id, sessions.c.revoked_at.is_(None))
                .values(revoked_at=_now())
            )
            await conn.execute(rooms.update().where(rooms.c.creator_id == guest_id).values(creator_id=into_id))
            await merge_ratings(conn, guest_id, into_id)
            now = _now()
            standing = await self._standing(conn, into, Credit.cap_since(now))
            totals = merge(standing, int(guest.xp), int(guest.wins))
            await self._store_totals(conn, into_id, standing.drop_seed, totals, None, now)
            await conn.execute(
                xp_merges.insert().values(
                    user_id=into_id,
                    guest_id=guest_id,
                    xp_brought=int(guest.xp),
                    xp_added=totals.xp - standing.xp,
                    created_at=now,
                )
            )
            await conn.execute(
                users.update().where(users.c.id == guest_id).values(xp=0, level=1, wins=0, deleted_at=now)
            )

    async def update_profile(
        self, user_id: str, *, nickname: str | None, avatar: str | None, language: str | None
    ) -> None:
        values: dict[str, Any] = {}
        if nickname is not None:
            values["nickname"] = nickname
        if avatar is not None:
            values["avatar"] = avatar
        if language is not None:
            values["language"] = language
        if not values:
            return
        async with self.engine.begin() as conn:
            await conn.execute(users.update().where(users.c.id == user_id).values(**values))

    async def delete_account(self, user_id: str) -> list[str]:
        now = _now()
        async with self.engine.begin() as conn:
            seated = (
                await conn.execute(
                    sa.select(room_seats.c.room_id, room_seats.c.seat).where(
                        sa.or_(room_seats.c.user_id == user_id, room_seats.c.replaced_user_id == user_id)
                    )
                )
            ).all()
            seats_in: dict[str, set[int]] = {}
            for row in seated:
                seats_in.setdefault(str(row.room_id), set()).add(int(row.seat))
            # The names the engine was told (served in every replay): the seats this person held, those a
            # bot took over from them included.
            for room_id, seat_numbers in seats_in.items():
                # The identities seen acting for those seats (hashed sessions, addresses, devices) go too.
                held = sorted(seat_numbers)
                await conn.execute(
                    seat_marks.delete().where(seat_marks.c.game_id == room_id, seat_marks.c.seat.in_(held))
                )
                info = (await conn.execute(sa.select(rooms.c.seat_info).where(rooms.c.id == room_id))).scalar()
                if isinstance(info, list):
                    renamed = [
                        dict(entry, name=DELETED_NAME) if i in seat_numbers and isinstance(entry, dict) else entry
                        for i, entry in enumerate(info)
                    ]
                    await conn.execute(rooms.update().where(rooms.c.id == room_id).values(seat_info=renamed))
            spoken = (
                await conn.execute(
                    sa.select(chat_messages.c.room_id).where(chat_messages.c.user_id == user_id).distinct()
                )
            ).scalars()
            touched = set(seats_in) | {str(r) for r in spoken}
            await conn.execute(api_keys.delete().where(api_keys.c.user_id == user_id))
            await conn.execute(sessions.delete().where(sessions.c.user_id == user_id))
            await conn.execute(cards.delete().where(cards.c.user_id == user_id))
            email = (await conn.execute(sa.select(users.c.email).where(users.c.id == user_id))).scalar()
            if email:
                await conn.execute(magic_links.delete().where(magic_links.c.email == email))
            await conn.execute(magic_links.delete().where(magic_links.c.guest_id == user_id))
            await conn.execute(room_seats.update().where(room_seats.c.user_id == user_id).values(name=DELETED_NAME))
            await conn.execute(
                room_seats.update().where(room_seats.c.replaced_user_id == user_id).values(replaced_user_id=None)
            )
            await conn.execute(
                chat_messages.update()
                .where(chat_messages.c.user_id == user_id)
                .values(name=DELETED_NAME, text=DELETED_TEXT)
            )
            await conn.execute(
                users.update()
                .where(users.c.id == user_id)
                .values(
                    nickname=DELETED_NAME,
                    email=None,
                    email_verified_at=None,
                    avatar=None,
                    xp=0,
                    level=1,
                    wins=0,
                    drop_seed=None,
                    deleted_at=now,
                )
            )
        return sorted(touched)

    # progression --------------------------------------------------------------------------------------
    # The rules (opolyx.progression.booking) decide; these methods read an account's standing and write
    # what was decided, inside the caller's transaction.

    async def _standing(self, conn: Any, user_row: Any, xp_since: datetime | None) -> Standing:
        """The account's standing; with ``xp_since``, also the XP booked to it since then."""
        # Secret until a drop reveals it; a revealed one is never drawn from again (docs/accounts.md).
        seed = await self._unrevealed_seed(conn, user_row)
        today = 0
        if xp_since is not None:
            # However XP arrives, the cap counts it: games booked and guests merged since then.
            booked = (
                await conn.execute(
                    sa.select(sa.func.coalesce(sa.func.sum(xp_awards.c.xp), 0)).where(
                        xp_awards.c.user_id == user_row.id,
                        xp_awards.c.created_at >= xp_since,
                        xp_awards.c.agent.is_(False),
                    )
                )
            ).scalar()
            brought = (
                await conn.execute(
                    sa.select(sa.func.coalesce(sa.func.sum(xp_merges.c.xp_added), 0)).where(
                        xp_merges.c.user_id == user_row.id, xp_merges.c.created_at >= xp_since
                    )
                )
            ).scalar()
            today = int(booked or 0) + int(brought or 0)
        return Standing(int(user_row.xp), int(user_row.level), int(user_row.wins), seed, today)

    @staticmethod
    async def _unrevealed_seed(conn: Any, user_row: Any) -> int:
        """The account's stored drop seed, or a fresh one when it has none or a card already revealed it
        (accounts from before seeds were spent with their drops)."""
        if user_row.drop_seed is not None:
            seed = int(user_row.drop_seed)
            shown = await conn.execute(
                sa.select(cards.c.id).where(cards.c.user_id == user_row.id, cards.c.seed == seed).limit(1)
            )
            if shown.first() is None:
                return seed
        return secrets.randbits(62)

    async def next_drop_seed(self, user_id: str) -> int | None:
        async with self.engine.begin() as conn:
            query = users.select().where(users.c.id == user_id)
            if conn.dialect.name == "postgresql":
                query = query.with_for_update()
            user = (await conn.execute(query)).first()
            if user is None or user.deleted_at is not None:
                return None
            seed = await self._unrevealed_seed(conn, user)
            if seed != user.drop_seed:
                await conn.execute(users.update().where(users.c.id == user_id).values(drop_seed=seed))
            return seed

    @staticmethod
    async def _store_totals(
        conn: Any, user_id: str, seed: int, totals: Totals, game_id: str | None, now: datetime
    ) -> list[CardRecord]:
        """Insert the cards dropped and write the account's new XP, level, wins and card seed: the same
        seed, or a fresh secret one once drops have revealed it (``Totals.seed_spent``)."""
        out = []
        for drop in totals.drops:
            result = await conn.execute(
                cards.insert().values(
                    user_id=user_id,
                    square=drop.square,
                    rarity=drop.rarity,
                    level=drop.level,
                    seed=seed,
                    game_id=game_id,
                    created_at=now,
                )
            )
            card_id = int(result.inserted_primary_key[0])
            out.append(CardRecord(card_id, drop.square, drop.rarity, drop.level, seed, game_id, now))
        await conn.execute(
            users.update()
            .where(users.c.id == user_id)
            .values(
                xp=totals.xp,
                level=totals.level,
                wins=totals.wins,
                drop_seed=secrets.randbits(62) if totals.seed_spent else seed,
            )
        )
        return out

    async def _credit(self, conn: Any, game_id: str, credits: Sequence[Credit]) -> list[AwardRecord]:
        """Book each seat's credit inside the caller's transaction (the one that stores the result):
        lock the account, read its standing, let the credit decide (daily cap, levels, drops), write."""
        now = _now()
        awards = []
        for c in sorted(credits, key=lambda c: c.seat):
            query = users.select().where(users.c.id == c.user_id)
            if conn.dialect.name == "postgresql":
                query = query.with_for_update()
            user = (await conn.execute(query)).first()
            if user is None or user.deleted_at is not None:
                continue
            standing = await self._standing(conn, user, c.cap_since(now))
            booking = c.book(standing)
            drops = await self._store_totals(conn, c.user_id, standing.drop_seed, booking.totals, game_id, now)
            after = booking.totals.level
            await conn.execute(
                xp_awards.insert().values(
                    game_id=game_id,
                    seat=c.seat,
                    user_id=c.user_id,
                    xp=booking.xp,
                    parts=booking.parts,
                    refused=booking.refused,
                    won=c.won,
                    level_before=booking.level_before,
                    level_after=after,
                    created_at=now,
                    agent=c.agent,
                )
            )
            awards.append(
                AwardRecord(
                    game_id,
                    c.seat,
                    c.user_id,
                    booking.xp,
                    booking.parts,
                    booking.refused,
                    c.won,
                    booking.level_before,
                    after,
                    tuple(drops),
                )
            )
        return awards

    async def cards_of(self, user_id: str) -> list[CardRecord]:
        query = cards.select().where(cards.c.user_id == user_id).order_by(cards.c.square, cards.c.id)
        async with self.engine.connect() as conn:
            return [_card(r) for r in (await conn.execute(query)).all()]

    async def recent_games(self, user_id: str, limit: int = 20) -> list[GameSummary]:
        query = (
            sa.select(rooms.c.id, rooms.c.mode, rooms.c.finished_at, rooms.c.result, room_seats.c.seat)
            .join(room_seats, room_seats.c.room_id == rooms.c.id)
            .where(room_seats.c.user_id == user_id, rooms.c.status == "finished")
            .order_by(rooms.c.finished_at.desc())
            .limit(limit)
        )
        async with self.engine.connect() as conn:
            rows = (await conn.execute(query)).all()
            ids = [r.id for r in rows]
            if not ids:
                return []
            names: dict[str, list[str]] = {}
            for s in (
                await conn.execute(
                    sa.select(room_seats.c.room_id, room_seats.c.name)
                    .where(room_seats.c.room_id.in_(ids))
                    .order_by(room_seats.c.room_id, room_seats.c.seat)
                )
            ).all():
                names.setdefault(s.room_id, []).append(s.name)
            xp = {
                (a.game_id, a.seat): a.xp
                for a in (
                    await conn.execute(
                        sa.select(xp_awards.c.game_id, xp_awards.c.seat, xp_awards.c.xp).where(
                            xp_awards.c.game_id.in_(ids)
                        )
                    )
                ).all()
            }
        out = []
        for r in rows:
            place = next((p["place"] for p in (r.result or {}).get("placements", []) if p.get("seat") == r.seat), None)
            finished = _utc(r.finished_at) if r.finished_at is not None else None
            out.append(
                GameSummary(
                    r.id, r.mode, finished, r.seat, place, xp.get((r.id, r.seat), 0), tuple(names.get(r.id, []))
                )
            )
        return out

    async def awards_of_game(self, game_id: str) -> list[AwardRecord]:
        async with self.engine.connect() as conn:
            rows = (
                await conn.execute(xp_awards.select().where(xp_awards.c.game_id == game_id).order_by(xp_awards.c.seat))
            ).all()
            drops = (await conn.execute(cards.select().where(cards.c.game_id == game_id))).all()
        by_user: dict[str, list[CardRecord]] = {}
        for d in drops:
            by_user.setdefault(d.user_id, []).append(_card(d))
        return [
            AwardRecord(
                r.game_id,
                r.seat,
                r.user_id,
                r.xp,
                r.parts,
                r.refused,
                bool(r.won),
                r.level_before,
                r.level_after,
                tuple(by_user.get(r.user_id, [])),
            )
            for r in rows
        ]

    async def meetings(self, user_id: str, others: Sequence[str], since: datetime) -> int:
        if not others:
            return 0
        mine = room_seats.alias("mine")
        theirs = room_seats.alias("theirs")
        query = (
            sa.select(theirs.c.user_id, sa.func.count(sa.distinct(rooms.c.id)))
            .select_from(rooms.join(mine, mine.c.room_id == rooms.c.id).join(theirs, theirs.c.room_id == rooms.c.id))
            .where(
                rooms.c.status == "finished",
                rooms.c.finished_at >= since,
                mine.c.user_id == user_id,
                theirs.c.user_id.in_(list(others)),
            )
            .group_by(theirs.c.user_id)
        )
        async with self.engine.connect() as conn:
            counts = [int(r[1]) for r in (await conn.execute(query)).all()]
        return max(counts, default=0)

    async def leaderboard(
        self,
        by: Literal["xp", "wins"],
        *,
        since: datetime | None,
        limit: int,
        viewer: str | None,
        board: Literal["people", "agents"] = "people",
    ) -> tuple[list[LeaderRow], LeaderRow | None]:
        live = users.c.deleted_at.is_(None)
        agents = board == "agents"
        if since is None and not agents:
            # People's XP and wins: agents' seats never add to these columns.
            column = users.c.xp if by == "xp" else users.c.wins
            base = sa.select(users.c.id.label("uid"), column.label("value")).where(live, column > 0)
        else:
            value = (
                sa.func.sum(xp_awards.c.xp)
                if by == "xp"
                else sa.func.sum(sa.case((sa.and_(xp_awards.c.won, xp_awards.c.refused.is_(None)), 1), else_=0))
            )
            window: sa.ColumnElement[bool] = xp_awards.c.agent.is_(agents)
            if since is not None:
                window = sa.and_(window, xp_awards.c.created_at >= since)
            base = (
                sa.select(xp_awards.c.user_id.label("uid"), value.label("value"))
                .where(window)
                .group_by(xp_awards.c.user_id)
                .having(value > 0)
            )
        ranked = base.subquery()
        top_q = (
            sa.select(ranked.c.uid, ranked.c.value, users.c.nickname, users.c.avatar, users.c.level)
            .join(users, users.c.id == ranked.c.uid)
            .where(live)
            .order_by(ranked.c.value.desc(), ranked.c.uid)
            .limit(limit)
        )
        async with self.engine.connect() as conn:
            rows = (await conn.execute(top_q)).all()
            top = [LeaderRow(i, r.uid, r.nickname, r.avatar, int(r.level), int(r.value)) for i, r in enumerate(rows, 1)]
            own = next((row for row in top if row.user_id == viewer), None)
            if own is None and viewer is not None:
                mine = (
                    await conn.execute(
                        sa.select(ranked.c.value, users.c.nickname, users.c.avatar, users.c.level)
                        .join(users, users.c.id == ranked.c.uid)
                        .where(ranked.c.uid == viewer)
                    )
                ).first()
                if mine is not None:
                    ahead = (
                        await conn.execute(
                            sa.select(sa.func.count())
                            .select_from(ranked.join(users, users.c.id == ranked.c.uid))
                            .where(live, ranked.c.value > mine.value)
                        )
                    ).scalar()
                    own = LeaderRow(
                        int(ahead or 0) + 1, viewer, mine.nickname, mine.avatar, int(mine.level), int(mine.value)
                    )
        return top, own
