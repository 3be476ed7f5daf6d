"""HTTP routes of quick play ("Play now": join, ask, start with bots, leave) and of skill ratings (your
ratings with their history, and a rating leaderboard per mode and pool). Documented by FastAPI at /docs."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request

from opolyx.progression.skill import PROVISIONAL_GAMES, display, provisional
from opolyx.protocol import errors as E
from opolyx.protocol.errors import ApiError
from opolyx.protocol.ranked import (
    Pool,
    QuickPlayIn,
    QuickPlayOut,
    RatingBoardOut,
    RatingLeaderOut,
    RatingOut,
    RatingPointOut,
    RatingsOut,
)
from opolyx.server.http.deps import ERRORS, MaybeUser, Services, Svc, User, rate_limit
from opolyx.server.play.quickplay import QuickPlay
from opolyx.storage import RatingLeaderRow

router = APIRouter(responses=ERRORS)
Mode = Annotated[str, Query(pattern="^(classic|blitz|speed|team|halal|fortuna)$")]


def _quick(svc: Services) -> QuickPlay:
    if svc.quickplay is None:
        raise ApiError(404, E.NOT_FOUND, "quick play is not offered here")
    return svc.quickplay


@router.post("/api/quickplay", tags=["lobby"])
async def quick_join(body: QuickPlayIn, request: Request, svc: Svc, user: User) -> QuickPlayOut:
    """Play now: wait for a table of this mode. People waiting are seated together (similar ratings
    first); when nobody more comes within ``wait_seconds`` the table fills with bots of ``strength``.
    Asking again replaces your wishes (the wait starts again)."""
    await rate_limit(svc, "join", request, user)
    return QuickPlayOut.model_validate(await _quick(svc).join(user, body.mode, body.seats, body.strength))


@router.get("/api/quickplay", tags=["lobby"])
async def quick_status(svc: Svc, user: User) -> QuickPlayOut:
    """Where you are: not queued, waiting (with the countdown), or seated (the room to open)."""
    return QuickPlayOut.model_validate(await _quick(svc).status(user))


@router.post("/api/quickplay/bots", tags=["lobby"])
async def quick_bots_now(svc: Svc, user: User) -> QuickPlayOut:
    """Stop waiting: your table forms now, bots in the seats no waiting person takes."""
    return QuickPlayOut.model_validate(await _quick(svc).bots_now(user))


@router.delete("/api/quickplay", tags=["lobby"])
async def quick_leave(svc: Svc, user: User) -> QuickPlayOut:
    """Leave the queue at once (answers ``seated`` instead if your table formed just before)."""
    return QuickPlayOut.model_validate(await _quick(svc).leave(user))


# --- ratings -----------------------------------------------------------------------------------------------


@router.get("/api/profile/ratings", tags=["accounts"])
async def my_ratings(svc: Svc, user: User) -> RatingsOut:
    """Your skill rating in every mode you played rated games in (and your agents' apart), with the
    history of each change for the profile's chart."""
    records = await svc.store.ratings_of(user.id)
    history = await svc.store.rating_history(user.id)
    return RatingsOut(
        ratings=[
            RatingOut(
                mode=r.mode,  # type: ignore[arg-type]
                pool=r.pool,  # type: ignore[arg-type]
                rating=display(r.mu, r.sigma),
                mu=r.mu,
                sigma=r.sigma,
                games=r.games,
                provisional=provisional(r.games),
            )
            for r in records
        ],
        history=[
            RatingPointOut(
                game_id=p.game_id,
                mode=p.mode,  # type: ignore[arg-type]
                pool=p.pool,  # type: ignore[arg-type]
                rating=display(p.mu, p.sigma),
                before=display(p.mu_before, p.sigma_before),
                games=p.games,
                at=p.at,
            )
            for p in history
        ],
    )


def _leader(r: RatingLeaderRow) -> RatingLeaderOut:
    return RatingLeaderOut(
        position=r.position,
        user_id=r.user_id,
        nickname=r.nickname,
        avatar=r.avatar,
        rating=display(r.mu, r.sigma),
        games=r.games,
    )


@router.get("/api/leaderboard/rating", tags=["accounts"])
async def rating_board(
    svc: Svc,
    viewer: MaybeUser,
    mode: Mode = "classic",
    pool: Pool = "people",
    limit: Annotated[int, Query(ge=1, le=100)] = 50,
) -> RatingBoardOut:
    """The best settled ratings of a mode: people, or AI agents (seats played through API keys) on a
    board of their own. Provisional ratings are left out."""
    rows, own = await svc.store.rating_leaderboard(
        mode, pool, min_games=PROVISIONAL_GAMES, limit=limit, viewer=viewer.id if viewer else None
    )
    return RatingBoardOut(
        mode=mode,  # type: ignore[arg-type]
        pool=pool,
        min_games=PROVISIONAL_GAMES,
        rows=[_leader(r) for r in rows],
        you=_leader(own) if own else None,
    )
