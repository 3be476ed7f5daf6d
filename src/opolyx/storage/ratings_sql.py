"""SQL implementation of the ratings half of the store (mixed into :class:`opolyx.storage.SqlStore`)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError

from opolyx.storage.ratings import (
    Decide,
    RatingKey,
    RatingLeaderRow,
    RatingPoint,
    RatingRecord,
)
from opolyx.storage.tables import rating_history, ratings, users


def _utc(value: datetime) -> datetime:
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def _record(row: Any) -> RatingRecord:
    return RatingRecord(row.user_id, row.mode, row.pool, float(row.mu), float(row.sigma), int(row.games))


def _ordinal(mu: float, sigma: float) -> float:
    return mu - 3.0 * sigma


async def merge_ratings(conn: Any, guest_id: str, into_id: str) -> None:
    """A guest merging into an account (inside merge_user's transaction): the guest's ratings move
    where the account has none of that mode and pool (the account's own stand otherwise), and the
    history rows of those ratings follow them."""
    theirs = (await conn.execute(ratings.select().where(ratings.c.user_id == guest_id))).all()
    mine = {
        (r.mode, r.pool)
        for r in (await conn.execute(ratings.select().where(ratings.c.user_id == into_id))).all()
    }
    for r in theirs:
        if (r.mode, r.pool) in mine:
            continue
        where = sa.and_(ratings.c.user_id == guest_id, ratings.c.mode == r.mode, ratings.c.pool == r.pool)
        await conn.execute(ratings.update().where(where).values(user_id=into_id))
        await conn.execute(
            rating_history.update()
            .where(
                rating_history.c.user_id == guest_id,
                rating_history.c.mode == r.mode,
                rating_history.c.pool == r.pool,
            )
            .values(user_id=into_id)
        )


class RatingsSql:
    engine: Any

    @staticmethod
    def _match(keys: Sequence[RatingKey]) -> Any:
        return sa.or_(
            *(
                sa.and_(ratings.c.user_id == k.user_id, ratings.c.mode == k.mode, ratings.c.pool == k.pool)
                for k in keys
            )
        )

    async def ratings_for(self, keys: Sequence[RatingKey]) -> dict[RatingKey, RatingRecord]:
        if not keys:
            return {}
        async with self.engine.connect() as conn:
            rows = (await conn.execute(ratings.select().where(self._match(keys)))).all()
        return {r.key: r for r in map(_record, rows)}

    async def ratings_of(self, user_id: str) -> list[RatingRecord]:
        query = ratings.select().where(ratings.c.user_id == user_id).order_by(ratings.c.pool, ratings.c.mode)
        async with self.engine.connect() as conn:
            return [_record(r) for r in (await conn.execute(query)).all()]

    async def book_ratings(self, game_id: str, keys: Sequence[RatingKey], decide: Decide) -> list[RatingRecord]:
        keys = list(dict.fromkeys(keys))
        if not keys:
            return []
        for attempt in range(3):
            try:
                return await self._book(game_id, keys, decide)
            except IntegrityError:
                # Two games of one person booked at once created the same new rating row: read again.
                if attempt == 2:
                    raise
        return []

    async def _book(self, game_id: str, keys: list[RatingKey], decide: Decide) -> list[RatingRecord]:
        now = datetime.now(UTC)
        async with self.engine.begin() as conn:
            booked = (
                await conn.execute(sa.select(sa.func.count()).where(rating_history.c.game_id == game_id))
            ).scalar()
            if booked:
                return []
            query = ratings.select().where(self._match(keys))
            if conn.dialect.name == "postgresql":
                query = query.with_for_update()
            stored = {r.key: r for r in map(_record, (await conn.execute(query)).all())}
            decided = decide({k: stored.get(k) for k in keys})
            out: list[RatingRecord] = []
            for key, moved in decided.items():
                mu, sigma = moved.mu, moved.sigma
                old = stored.get(key)
                games = (old.games if old else 0) + 1
                values = {"mu": mu, "sigma": sigma, "ordinal": _ordinal(mu, sigma), "games": games, "updated_at": now}
                if old is None:
                    await conn.execute(
                        ratings.insert().values(user_id=key.user_id, mode=key.mode, pool=key.pool, **values)
                    )
                else:
                    await conn.execute(
                        ratings.update()
                        .where(ratings.c.user_id == key.user_id, ratings.c.mode == key.mode, ratings.c.pool == key.pool)
                        .values(**values)
                    )
                await conn.execute(
                    rating_history.insert().values(
                        game_id=game_id,
                        user_id=key.user_id,
                        pool=key.pool,
                        mode=key.mode,
                        mu_before=moved.mu_before,
                        sigma_before=moved.sigma_before,
                        mu=mu,
                        sigma=sigma,
                        games=games,
                        created_at=now,
                    )
                )
                out.append(RatingRecord(key.user_id, key.mode, key.pool, mu, sigma, games))
            return out

    async def rating_history(self, user_id: str, limit: int = 200) -> list[RatingPoint]:
        query = (
            rating_history.select()
            .where(rating_history.c.user_id == user_id)
            .order_by(rating_history.c.created_at.desc(), rating_history.c.game_id)
            .limit(limit)
        )
        async with self.engine.connect() as conn:
            rows = (await conn.execute(query)).all()
        return [
            RatingPoint(
                r.game_id, r.mode, r.pool, float(r.mu_before), float(r.sigma_before), float(r.mu), float(r.sigma),
                int(r.games), _utc(r.created_at),
            )
            for r in reversed(rows)
        ]

    async def rating_leaderboard(
        self, mode: str, pool: str, *, min_games: int, limit: int, viewer: str | None
    ) -> tuple[list[RatingLeaderRow], RatingLeaderRow | None]:
        live = sa.and_(
            users.c.deleted_at.is_(None), ratings.c.mode == mode, ratings.c.pool == pool, ratings.c.games >= min_games
        )
        base = sa.select(
            ratings.c.user_id, ratings.c.mu, ratings.c.sigma, ratings.c.games, ratings.c.ordinal,
            users.c.nickname, users.c.avatar,
        ).join(users, users.c.id == ratings.c.user_id).where(live)
        top_q = base.order_by(ratings.c.ordinal.desc(), ratings.c.user_id).limit(limit)

        def row(position: int, r: Any) -> RatingLeaderRow:
            return RatingLeaderRow(position, r.user_id, r.nickname, r.avatar, float(r.mu), float(r.sigma), int(r.games))

        async with self.engine.connect() as conn:
            top = [row(i, r) for i, r in enumerate((await conn.execute(top_q)).all(), 1)]
            own = next((r for r in top if r.user_id == viewer), None)
            if own is None and viewer is not None:
                mine = (await conn.execute(base.where(ratings.c.user_id == viewer))).first()
                if mine is not None:
                    ahead = (
                        await conn.execute(
                            sa.select(sa.func.count())
                            .select_from(ratings.join(users, users.c.id == ratings.c.user_id))
                            .where(live, ratings.c.ordinal > mine.ordinal)
                        )
                    ).scalar()
                    own = row(int(ahead or 0) + 1, mine)
        return top, own
